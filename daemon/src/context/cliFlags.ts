/**
 * The CLI's context flags, taken out of argv before the rest is parsed (`--diff` takes an
 * optional value, which node's parseArgs cannot express):
 *
 *   --context PATH_OR_GLOB   a file, folder or glob to attach (repeat it)
 *   --diff [REF]             the git diff of the work tree against REF (default HEAD)
 *   --note TEXT              a plain-text note shown to everyone
 *   --decisions DIR          folder of earlier decision records (default docs/decisions)
 *   --tools                  let workers call read-only workspace tools (OpenAI-compatible servers)
 */
import type { ContextRequest } from '@roundtable/protocol';
import { GIT_REF_PATTERN } from '@roundtable/protocol';

export const CONTEXT_USAGE = `  --context PATH_OR_GLOB  a file, folder or glob to show every participant (repeat it)
  --diff [REF]            show the git diff of the work tree against REF (default HEAD)
  --note TEXT             a plain-text note shown to every participant
  --decisions DIR         earlier decision records to brief the room with (default docs/decisions)
  --tools                 let workers read and search the workspace (read-only; OpenAI-compatible servers)`;

export const DEFAULT_DECISIONS_FOLDER = 'docs/decisions';

/** Splits argv into the context request and the remaining arguments. Throws a one-line Error on misuse. */
export function takeContextFlags(argv: string[]): { rest: string[]; context: ContextRequest; tools: boolean } {
  let tools = false;
  const rest: string[] = [];
  const paths: string[] = [];
  const context: ContextRequest = { decisionsFolder: DEFAULT_DECISIONS_FOLDER };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    const [flag, inline] =
      a.startsWith('--') && a.includes('=')
        ? [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)]
        : [a, undefined];
    const value = (): string => {
      const v = inline ?? argv[++i];
      if (v === undefined || (inline === undefined && v.startsWith('--')) || v.trim() === '')
        throw new Error(`${flag} needs a value`);
      return v;
    };
    if (a === '--tools') tools = true;
    else if (flag === '--context') paths.push(value());
    else if (flag === '--note') context.note = value();
    else if (flag === '--decisions') context.decisionsFolder = value();
    else if (flag === '--diff') {
      const next = inline ?? (argv[i + 1] !== undefined && !argv[i + 1]?.startsWith('-') ? argv[++i] : undefined);
      const ref = next ?? 'HEAD';
      if (!GIT_REF_PATTERN.test(ref)) throw new Error(`--diff must name a branch, tag or commit, got "${ref}"`);
      context.diff = { ref };
    } else rest.push(a);
  }
  if (paths.length > 0) context.paths = paths;
  return { rest, context, tools };
}
