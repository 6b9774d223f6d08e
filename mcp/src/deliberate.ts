/**
 * The MCP tool `deliberate`: an agent asks for a decision and gets it back. It convenes a whole
 * meeting on the panel `roundtable run` would choose (ROUNDTABLE_BASE_URL, an API key, or a local
 * server), reports each round as MCP progress, cuts the meeting when the call is cancelled, and
 * answers with the digest. The decision stays the person's: nothing here accepts or rejects it.
 */
import { Writable } from 'node:stream';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { MeetingState, Participant, StartMeetingParams } from '@roundtable/protocol';
import {
  DEFAULT_CONFIG,
  plannedRounds,
  MeetingConfigSchema,
  MeetingModeSchema,
  StartMeetingParamsSchema,
  check,
  checkStartParams,
} from '@roundtable/protocol';
import * as z from 'zod';
import { apiKeyOf, convene, type DaemonSession } from '@roundtable/client';
import { choosePanel } from '../../daemon/src/panelChoice';
import { UsageError } from '@roundtable/client/usage';
import { writeMinutesOrExplain } from '@roundtable/client/minutesOutput';
import { workspaceGate } from '../../daemon/src/gate/index';
import { listModels } from '../../daemon/src/modelLists';
import { preflightPanel } from '../../daemon/src/providers/preflight';
import { DELIBERATE_OUTPUT, deliberateReport, progressLine } from './deliberateReport';

export interface DeliberateOptions {
  /** Where the panel is chosen from: ROUNDTABLE_BASE_URL, the API keys, ROUNDTABLE_PROBE_SERVERS. */
  env: NodeJS.ProcessEnv;
  /** The folder context paths are read from and minutes written into (`--workspace`, default the working folder). */
  workspace: string;
  /** Where the minutes are written. */
  minutesDir: string;
}

/** With no model the tool says this and runs nothing: the canned demo is never passed off as a decision. */
export const NO_MODEL =
  'no model found: set ROUNDTABLE_BASE_URL=http://HOST:PORT/v1 (any OpenAI-compatible server) or OPENAI_API_KEY in the MCP server\u2019s env, or start Ollama, LM Studio or vLLM';

/**
 * The tool's input. The fields are loosely typed here on purpose: the SDK would refuse a bad value
 * with its own multi-line text, while the protocol's schema (checked in `prepare`) says it in one line.
 */
const config = MeetingConfigSchema.shape;
const INPUT = {
  topic: z.string().describe('The question the panel deliberates'),
  mode: MeetingModeSchema.optional().describe(
    'roundtable (default): a discussion judged to a consensus; consensus: a structured vote on options',
  ),
  options: z
    .array(z.string())
    .optional()
    .describe('Consensus mode: 2 to 20 options to vote on (none: the workers propose them)'),
  context: z
    .array(z.string())
    .optional()
    .describe('Workspace files, folders or globs every participant reads (relative to the workspace)'),
  maxRounds: config.maxRounds.optional(),
};
type Input = z.infer<z.ZodObject<typeof INPUT>>;

/** The start params without the panel, so bad input is refused before any server is asked. */
const WITHOUT_PANEL = StartMeetingParamsSchema.omit({ participants: true });

/** A call refused before anything is spent, with the one line that says why. */
export class Refused extends Error {}

/** Every context path through the workspace gate: one outside it, missing or secret is refused up front. */
async function checkContext(workspace: string, paths: readonly string[]): Promise<void> {
  const gate = workspaceGate(workspace);
  for (const p of paths) {
    if (/[*?[{]/.test(p)) continue; // a glob is expanded by the gate itself, file by file
    const where = await gate.locate(p);
    if ('reason' in where) throw new Refused(`context path "${where.path}" ${where.reason}`);
  }
}

/**
 * The panel and server `roundtable run` would use (`models`: one per worker, in order), checked
 * against the server's own list; refused in one line when only the demo is left or a model is gone.
 */
export async function readyPanel(
  env: NodeJS.ProcessEnv,
  tool: string,
  models?: string[],
): Promise<{ participants: Participant[]; baseURL: string; apiKey?: string }> {
  let choice;
  try {
    choice = await choosePanel({ provider: 'auto', env, ...(models ? { models } : {}) });
  } catch (e) {
    if (e instanceof UsageError) throw new Refused(e.message);
    throw e;
  }
  if (choice.demoFallback) throw new Refused(NO_MODEL);
  const { participants, baseURL } = choice;
  const apiKey = apiKeyOf(env);
  const problems = await preflightPanel(participants, {
    baseUrl: baseURL,
    listModels,
    // The panel came from the server's own list a moment ago: a model gone since is a server that changed.
    pickHint: `call ${tool} again to build the panel from what the server has now`,
    ...(apiKey ? { apiKey } : {}),
  });
  if (problems.length > 0) throw new Refused(problems.join('; '));
  return { participants, baseURL, ...(apiKey ? { apiKey } : {}) };
}

/** Checks everything and builds the start params; throws `Refused` with one line before anything is spent. */
async function prepare(a: Input, o: DeliberateOptions): Promise<StartMeetingParams> {
  const mode = a.mode ?? 'roundtable';
  if (a.options && mode !== 'consensus') throw new Refused('options are for mode "consensus"');
  const asked = {
    topic: a.topic,
    mode,
    ...(a.options ? { options: a.options } : {}),
    ...(a.maxRounds ? { config: { maxRounds: a.maxRounds } } : {}),
    workspace: o.workspace,
    ...(a.context?.length ? { context: { paths: a.context } } : {}),
  };
  const shape = check(WITHOUT_PANEL, asked);
  if (!shape.ok) throw new Refused(shape.error);
  await checkContext(o.workspace, a.context ?? []);
  const { participants, baseURL, apiKey } = await readyPanel(o.env, 'deliberate');
  const checked = checkStartParams({ ...asked, participants, providers: { baseURL }, ...(apiKey ? { apiKey } : {}) });
  if (!checked.ok) throw new Refused(checked.error);
  return checked.value;
}

/**
 * Writes the minutes like `roundtable run`, from the state the meeting's handle folded as it
 * followed it (the log is not read or folded again); when it cannot, the one line that says how to
 * get them later.
 */
export async function minutesOf(s: MeetingState, o: DeliberateOptions): Promise<{ path: string; written: boolean }> {
  let why = '';
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      why += chunk.toString();
      done();
    },
  });
  const file = await writeMinutesOrExplain(o.minutesDir, s, sink, { workspace: o.workspace });
  return file ? { path: file, written: true } : { path: why.replace(/^roundtable: /, '').trim(), written: false };
}

/** A Refused line, or a model server that failed in a way of its own: one line either way. */
export function refusal(e: unknown): CallToolResult {
  return { content: [{ type: 'text', text: (e as Error).message.split('\n')[0] ?? '' }], isError: true };
}

/**
 * Sends `notifications/progress` for this call when the client asked for it (a progress token),
 * else does nothing. A client gone mid-meeting is told nothing more; the meeting goes on to its end.
 */
export function progressOf(
  extra: RequestHandlerExtra<ServerRequest, ServerNotification>,
): (progress: number, message: string, total?: number) => void {
  const token = extra._meta?.progressToken;
  return (progress, message, total) => {
    if (token === undefined) return;
    void extra
      .sendNotification({
        method: 'notifications/progress',
        params: { progressToken: token, progress, ...(total === undefined ? {} : { total }), message },
      })
      .catch(() => undefined);
  };
}

export function registerDeliberate(
  server: McpServer,
  daemon: Pick<DaemonSession, 'meetings'>,
  o: DeliberateOptions,
): void {
  server.registerTool(
    'deliberate',
    {
      title: 'Deliberate',
      description:
        'Convene a panel of models (the local Roundtable daemon) to argue a question over rounds and return their decision: ' +
        'outcome, consensus, verdict, dissent and confidence, with the minutes written into the workspace. ' +
        'Reports each round as progress; cancelling cuts the meeting. The decision stays pending for the person to review.',
      inputSchema: INPUT,
      outputSchema: DELIBERATE_OUTPUT,
    },
    async (a, extra) => {
      let params: StartMeetingParams;
      try {
        params = await prepare(a, o);
      } catch (e) {
        return refusal(e);
      }
      const progress = progressOf(extra);
      // What the meeting plans to run: a consensus vote counts its vote and challenge rounds, not maxRounds.
      const total = plannedRounds(params.mode, { ...DEFAULT_CONFIG, ...params.config });
      const result = await convene(daemon.meetings, params, {
        signal: extra.signal,
        onRound: (p) => progress(p.round, progressLine(p), total),
      });
      const minutes = await minutesOf(result.state, o);
      return deliberateReport(result, minutes);
    },
  );
}
