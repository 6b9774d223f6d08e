/**
 * Convening a meeting from inside VS Code without a person at the keyboard: the language model
 * tool (agent mode) and the `@roundtable` chat participant both come through here. The input is
 * checked (one line, nothing spent), the panel is the saved one or the automatic proposal (no
 * picker), the meeting starts and is followed like any other (Meetings view, room, review,
 * minutes), and its digest comes back as Markdown. Nothing here ever accepts or rejects the
 * decision: the review stays the person's.
 */
import * as vscode from 'vscode';
import type { ContextRequest, MeetingMode, MeetingState, StartMeetingParams } from '@roundtable/protocol';
import { check } from '@roundtable/protocol';
import type { RoundProgress } from '@roundtable/client';
import { ConveneInputSchema, DIFF_CONTEXT } from '@roundtable/protocol/convene';
import { describePanel } from './panelPicker';
import type { DaemonLink } from './daemonLink';
import { workspaceRelative } from './discuss';
import { estimateLine } from './estimate';
import { modelSourceFor } from './modelSource';
import { workspaceRoot } from './workspaceFolders';
import { choosePanel } from './panelChoice';
import { API_KEY_SECRET, meetingConfig, meetingParams, startSettings } from './startFlow';
import { digestReport } from './conveneReport';

/** The input once checked: the mode decided and the context as the daemon reads it. */
export interface CheckedConvene {
  topic: string;
  mode: MeetingMode;
  options: string[];
  attach: ContextRequest | undefined;
  maxRounds: number | undefined;
}

/** Workspace paths and `"diff"` as a context request; throws one line for a path outside the workspace. */
function attachOf(context: readonly string[]): ContextRequest | undefined {
  if (context.length === 0) return undefined;
  const root = workspaceRoot();
  const paths: string[] = [];
  let diff = false;
  for (const item of context.map((c) => c.trim())) {
    if (item === DIFF_CONTEXT) diff = true;
    else if (!root) throw new Error(`Context "${item}" needs an open folder: open the workspace it belongs to.`);
    else {
      const uri = /^(\/|[A-Za-z]:[\\/])/.test(item) ? vscode.Uri.file(item) : vscode.Uri.joinPath(root, item);
      const rel = workspaceRelative(uri);
      if (rel === undefined || rel.split('/').includes('..'))
        throw new Error(`Context "${item}" is outside the workspace: Roundtable only reads files of the open folder.`);
      paths.push(rel);
    }
  }
  if (diff && !root) throw new Error('The diff needs an open folder with a git repository.');
  return { ...(paths.length ? { paths } : {}), ...(diff ? { diff: { ref: 'HEAD' } } : {}) };
}

/**
 * The input checked, or one line saying what is wrong (thrown): an empty topic, a vote with one
 * option, options without a vote, a path outside the workspace. Options without a mode mean a vote.
 */
export function validateConveneInput(input: unknown): CheckedConvene {
  const checked = check(ConveneInputSchema, input ?? {}, 'input');
  if (!checked.ok) throw new Error(`Roundtable: ${checked.error}.`);
  const v = checked.value;
  const options = v.options ?? [];
  const mode: MeetingMode = v.mode ?? (options.length ? 'consensus' : 'roundtable');
  if (mode === 'roundtable' && options.length)
    throw new Error('Roundtable: options are for a vote: set mode to "consensus", or leave the options out.');
  return { topic: v.topic, mode, options, attach: attachOf(v.context ?? []), maxRounds: v.maxRounds };
}

/** What the extension lends this module: set once at activation. */
export interface ConveneHost {
  context: vscode.ExtensionContext;
  link: DaemonLink;
  log: vscode.LogOutputChannel;
  /** A meeting started here: followed from its first event, listed and shown like any other. */
  startedHere(meetingId: string): Promise<void>;
}

let host: ConveneHost | undefined;

export function setConveneHost(h: ConveneHost): vscode.Disposable {
  host = h;
  return new vscode.Disposable(() => {
    if (host === h) host = undefined;
  });
}

function theHost(): ConveneHost {
  if (!host) throw new Error('Roundtable is not ready yet: try again once the extension has started.');
  return host;
}

/** A meeting ready to start: its params, the panel in words and the expected bill. */
export interface PreparedConvene {
  params: StartMeetingParams;
  panel: string;
  /** Where the panel comes from ("roundtable.participants", "proposed from your models"). */
  source: string;
  /** The bill in one line ("about 9,040 billed tokens in 17 calls over 3 rounds · $0.0041"), when the daemon can say. */
  estimate: string | undefined;
}

/**
 * The meeting that `conveneFromExtension` would start, without starting it or calling a model:
 * for the confirmation shown before anything is spent.
 */
export async function prepareConvene(input: unknown): Promise<PreparedConvene> {
  const h = theHost();
  const c = validateConveneInput(input);
  const cfg = startSettings();
  const storedKey = await h.context.secrets.get(API_KEY_SECRET);
  const chosen = await choosePanel({
    settings: cfg,
    apiKey: storedKey,
    models: modelSourceFor(h.context, h.log),
    log: h.log,
    interactive: false,
  });
  if (!chosen) throw new Error('Roundtable: no panel could be chosen: see "Roundtable: Show Log".');
  const config = { ...meetingConfig(cfg), ...(c.maxRounds ? { maxRounds: c.maxRounds } : {}) };
  const params = meetingParams({ ...c, panel: chosen.panel, cfg, config, storedKey });
  return {
    params,
    panel: describePanel(chosen.panel),
    source: chosen.source,
    // Convening starts through its own door (no start token): nothing is kept for it.
    estimate: (await estimateLine(h.link, params, { prepare: false })).line,
  };
}

/** How a convened meeting ended, with its digest as Markdown (already escaped). */
export interface ConveneOutcome {
  meetingId: string;
  state: MeetingState;
  /** Outcome, verdict, dissent, confidence, "was the debate worth it", the meeting id and a link to the room. */
  digest: string;
  /** The outcome in one line of plain text. */
  outcome: string;
  cut: boolean;
}

/**
 * Starts the meeting on the user's panel and follows it to its digest. A cancelled `token` cuts
 * the meeting, and the digest of what was said is still returned.
 */
export async function conveneFromExtension(
  input: unknown,
  opts: { token?: vscode.CancellationToken; onRound?: (p: RoundProgress) => void; prepared?: PreparedConvene } = {},
): Promise<ConveneOutcome> {
  const h = theHost();
  const prepared = opts.prepared ?? (await prepareConvene(input));
  if (opts.token?.isCancellationRequested) throw new vscode.CancellationError();
  const abort = new AbortController();
  const sub = opts.token?.onCancellationRequested(() => abort.abort());
  try {
    const r = await h.link.convene(prepared.params, {
      signal: abort.signal,
      ...(opts.onRound ? { onRound: opts.onRound } : {}),
      started: (id) => {
        h.log.info(`meeting ${id} convened from chat: ${prepared.params.topic}`);
        return h.startedHere(id);
      },
    });
    return {
      meetingId: r.meetingId,
      state: r.state,
      outcome: r.outcome,
      cut: r.cut,
      digest: digestReport(r.state, { cut: r.cut }),
    };
  } finally {
    sub?.dispose();
  }
}
