/**
 * The MCP tool `review`: an agent asks the panel to review its own change before it commits. It
 * starts a review meeting (`meeting/start`, mode consensus, with `review`: the daemon reads the
 * change through the workspace gate and picks the decision records), on the panel `deliberate`
 * would use, reports the proposals and the votes as MCP progress, cuts the meeting when the call is
 * cancelled, and answers with the findings, their verdicts and votes, and the exit code the CLI
 * would give. Nothing here accepts a finding or commits anything: the agent reads and acts.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { MeetingEvent, StartMeetingParams } from '@roundtable/protocol';
import { FailOnSchema, ReviewRequestSchema, checkStartParams, check, type FailOn } from '@roundtable/protocol';
import { PANEL_WORKERS } from '@roundtable/protocol/panel';
import { oneLine } from '@roundtable/protocol/markdown';
import { reviewOutcome } from '@roundtable/protocol/reviewOutcome';
import * as z from 'zod';
import { convene, gistOf, type DaemonSession, type RoundProgress } from '@roundtable/client';
import { Refused, minutesOf, progressOf, readyPanel, refusal, type DeliberateOptions } from './deliberate';
import { NOTHING_TO_REVIEW } from '../../daemon/src/review/prepare';
import { REVIEW_OUTPUT, nothingToReview, reviewReport } from './reviewReport';

/**
 * The tool's input, loosely typed on purpose as `deliberate`'s is: the SDK would refuse a bad value
 * with its own multi-line text, while the protocol's schemas (checked in `prepare`) say it in one line.
 */
const INPUT = {
  base: z
    .string()
    .optional()
    .describe(
      'Review the commits since this branch, tag or commit, plus the work tree (default: the merge base with the default branch)',
    ),
  worktree: z.boolean().optional().describe('Review only the uncommitted changes (the work tree against HEAD)'),
  failOn: z
    .string()
    .optional()
    .describe(
      'The bar for exit 1: blocking (default: a PROVEN blocking finding), major (PROVEN blocking or major), contested (also a CONTESTED one)',
    ),
  models: z
    .array(z.string())
    .optional()
    .describe(`2 to ${PANEL_WORKERS.length} model names, one per reviewer (default: chosen from the server's list)`),
};
type Input = z.infer<z.ZodObject<typeof INPUT>>;

/** The topic every review meeting has: the change and the rules come from `review`, not from here. */
export const REVIEW_TOPIC = 'Review this change against the accepted decision records';

/** Checks everything and builds the start params; throws `Refused` with one line before anything is spent. */
async function prepare(a: Input, o: DeliberateOptions): Promise<{ params: StartMeetingParams; failOn: FailOn }> {
  if (a.base !== undefined && a.worktree) throw new Refused('give base or worktree, not both');
  const request = check(ReviewRequestSchema, {
    ...(a.base === undefined ? {} : { base: a.base }),
    ...(a.worktree === undefined ? {} : { worktree: a.worktree }),
  });
  if (!request.ok) throw new Refused(request.error);
  const failOn = check(FailOnSchema, a.failOn ?? 'blocking');
  if (!failOn.ok)
    throw new Refused(`failOn must be ${FailOnSchema.options.join(', ')}, got "${gistOf(a.failOn ?? '')}"`);
  const models = a.models?.map((m) => m.trim());
  if (models && (models.length < 2 || models.length > PANEL_WORKERS.length || models.some((m) => !m)))
    throw new Refused(`models takes 2 to ${PANEL_WORKERS.length} model names, one per reviewer`);
  const { participants, baseURL, apiKey } = await readyPanel(o.env, 'review', models);
  const checked = checkStartParams({
    topic: REVIEW_TOPIC,
    mode: 'consensus',
    participants,
    providers: { baseURL },
    ...(apiKey ? { apiKey } : {}),
    workspace: o.workspace,
    review: request.value,
  });
  if (!checked.ok) throw new Refused(checked.error);
  return { params: checked.value, failOn: failOn.value };
}

/** A progress line for the steps before the vote: each reviewer's proposals, then the findings put to the vote. */
export function reviewStepLine(e: MeetingEvent): string | undefined {
  if (e.type === 'options_proposed') {
    const n = e.findings?.length ?? e.options.length;
    return `${oneLine(e.worker)} proposed ${n} finding${n === 1 ? '' : 's'}`;
  }
  if (e.type === 'options_set') {
    const refuted = e.options.filter((x) => x.finding?.refuted).length;
    const voted = e.options.length - refuted;
    return `${voted} finding${voted === 1 ? '' : 's'} to vote on${refuted ? `, ${refuted} refuted before the vote` : ''}`;
  }
  return undefined;
}

/** A progress line for a round of the vote: each reviewer's ballot (`accept O1, reject O2`), one line, controls dropped. */
export function voteLine(p: RoundProgress): string {
  const ballots = p.posts.map(
    (x) => `${oneLine(x.speaker)}${x.model ? ` (${oneLine(x.model)})` : ''}: ${oneLine(x.gist)}`,
  );
  return `Vote ${p.round}: ${ballots.join('; ')}`;
}

export function registerReview(server: McpServer, daemon: Pick<DaemonSession, 'meetings'>, o: DeliberateOptions): void {
  server.registerTool(
    'review',
    {
      title: 'Review',
      description:
        "Ask a panel of models (the local Roundtable daemon) to review your change before you commit: the diff against the team's " +
        'accepted decision records (docs/decisions) and for defects. Reviewers propose findings independently, findings outside the ' +
        'change or citing no accepted decision are refuted mechanically, then the others vote on each finding their vote can still ' +
        "decide (a reviewer's own findings are its accepts). Returns every finding with " +
        'its verdict (PROVEN, REFUTED, CONTESTED, INSUFFICIENT_EVIDENCE) and votes, and exit: 0 clean, 1 a finding at the failOn bar ' +
        'holds, 3 the review could not be done (why says why; never a verdict on the change). Reports progress; cancelling cuts it.',
      inputSchema: INPUT,
      outputSchema: REVIEW_OUTPUT,
    },
    async (a, extra) => {
      let asked: Awaited<ReturnType<typeof prepare>>;
      try {
        asked = await prepare(a, o);
      } catch (e) {
        return refusal(e);
      }
      const progress = progressOf(extra);
      let step = 0;
      let result;
      try {
        result = await convene(daemon.meetings, asked.params, {
          signal: extra.signal,
          onEvent: (e) => {
            const line = reviewStepLine(e);
            if (line) progress(++step, line);
          },
          onRound: (p) => progress(++step, voteLine(p)),
        });
      } catch (e) {
        const line = (e as Error).message.split('\n')[0] ?? '';
        if (line.includes(NOTHING_TO_REVIEW)) return nothingToReview(line.replace(/^review: /, ''));
        // Refused by the daemon (a ref git does not know, the gate): one line, nothing spent.
        return refusal(e);
      }
      const minutes = await minutesOf(result.state, o);
      return reviewReport(result, reviewOutcome(result.state, asked.failOn), minutes);
    },
  );
}
