/**
 * The shipped demo, behind the scripted provider: where its panel, script and evidence live
 * (examples/), and the one rule that checks a demo ballot's evidence there. The daemon wires the
 * rule into the manager; neither the engine nor the manager knows a demo exists.
 */
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { isScriptedPanel, type StartMeetingParams } from '@roundtable/protocol';

/** The shipped demo panel and script, found from the bundle (dist/daemon) or the sources (daemon/src/providers). */
export function examplesDir(): string {
  const candidates = [
    path.resolve(__dirname, '..', '..', 'examples'),
    path.resolve(__dirname, '..', '..', '..', 'examples'),
  ];
  return candidates.find((d) => existsSync(path.join(d, 'demo-panel.json'))) ?? (candidates[0] as string);
}

/**
 * Where the evidence of a meeting is checked: the shipped demo's ballots cite the demo's own files,
 * so a panel that is all scripted and plays the shipped script is checked in `examples/`; any other
 * meeting in `workspace`. One rule for the CLI and the daemon, so a demo consensus reaches its
 * verdict from both.
 */
export function evidenceWorkspace<W extends string | undefined>(o: {
  participants: readonly { provider: string }[];
  playsShippedScript: boolean;
  workspace: W;
}): string | W {
  return o.playsShippedScript && isScriptedPanel(o.participants) ? examplesDir() : o.workspace;
}

let demoScript: unknown;
/** The shipped demo script (examples/demo-script.json), read once. */
export function loadDemoScript(): unknown {
  demoScript ??= JSON.parse(readFileSync(path.join(examplesDir(), 'demo-script.json'), 'utf8'));
  return demoScript;
}

/** The manager's evidence rule: a scripted panel with no script of its own plays the shipped demo. */
export function demoEvidenceWorkspace(params: StartMeetingParams): string | undefined {
  return evidenceWorkspace({
    participants: params.participants,
    playsShippedScript: params.providers?.script === undefined,
    workspace: params.workspace,
  });
}
