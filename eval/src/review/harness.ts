/**
 * Runs a review set with bounded concurrency, appending every reviewed case (its meeting's log) to
 * a JSONL checkpoint so an interrupted run resumes without reviewing it again; on resume each case
 * is scored again from its log, under the same tamper checks as the question sets' checkpoints.
 */
import type { FailOn, MeetingState, Prices } from '@roundtable/protocol';
import { workersOf } from '@roundtable/protocol';
import { checkpointEntries, runCheckpointed } from '../harness';
import type { ReviewCase } from './cases';
import { eventsOfLine, sameReviewKey, scoreCase, type CaseResult, type ReviewRunKey } from './record';
import { reviewCase, type ReviewSetup } from './run';
import { evalCore } from '../systems';
import { summarizeReview, type ReviewEvalResults } from './summary';
import { systemNames } from './systems';

export interface ReviewScoring {
  failOn: FailOn;
  prices?: Prices;
}

/**
 * The cases a checkpoint of the same run (same set — files, change and labels —, panel and
 * provider) holds, each scored again from its log; an error line when it belongs to another run.
 */
export function readReviewCheckpoint(
  file: string,
  key: ReviewRunKey,
  cases: readonly ReviewCase[],
  setup: Pick<ReviewSetup, 'participants'>,
  scoring: ReviewScoring,
): Map<string, CaseResult> {
  const done = new Map<string, CaseResult>();
  const byId = new Map(cases.map((c) => [c.id, c]));
  const differs = 'set, its files or labels, models or provider';
  checkpointEntries<ReviewRunKey>(
    file,
    (k) => sameReviewKey(k, key),
    differs,
    (v) => {
      const id = (v as { id?: unknown } | null)?.id;
      const c = typeof id === 'string' ? byId.get(id) : undefined;
      const kept = c ? eventsOfLine(v, c, setup.participants) : undefined;
      if (c && kept) done.set(c.id, scoreCase(c, kept, setup.participants, scoring.failOn, scoring.prices));
    },
  );
  return done;
}

export interface ReviewHarnessOptions extends ReviewScoring {
  setup: ReviewSetup;
  key: ReviewRunKey;
  cases: ReviewCase[];
  concurrency: number;
  checkpoint: string;
  resume: boolean;
  /** The cases the checkpoint holds, read already (readReviewCheckpoint); read here when resuming without them. */
  done?: ReadonlyMap<string, CaseResult>;
  /** After each case (resumed ones included), with the results so far. */
  onProgress?: (done: number, total: number, results: CaseResult[]) => void;
}

/** When no reviewer answered at all (a server gone, a model missing), nothing was measured: the run stops. */
function nobodyReviewed(s: MeetingState): string | undefined {
  const failures = Object.entries(s.proposalFailures ?? {});
  const workers = workersOf(s).length;
  if (workers === 0 || failures.length < workers) return undefined;
  const [who, f] = failures[0] ?? ['?', { reason: 'error', detail: '' }];
  return `every reviewer failed (${who}: ${f.reason}${f.detail ? `: ${f.detail}` : ''})`;
}

export async function runReviewEval(
  o: ReviewHarnessOptions,
): Promise<{ results: ReviewEvalResults; cases: CaseResult[] }> {
  const done =
    o.done ??
    (o.resume ? readReviewCheckpoint(o.checkpoint, o.key, o.cases, o.setup, o) : new Map<string, CaseResult>());
  const core = await evalCore(o.setup.provider);
  try {
    const results = await runCheckpointed({
      items: o.cases,
      done,
      key: o.key,
      checkpoint: o.checkpoint,
      resume: o.resume,
      concurrency: o.concurrency,
      work: async (c: ReviewCase) => {
        const reviewed = await reviewCase(o.setup, core, c);
        const nobody = nobodyReviewed(reviewed.state);
        if (nobody) throw new Error(`review case ${c.id}: ${nobody}`);
        const result = scoreCase(c, reviewed, o.setup.participants, o.failOn, o.prices);
        return { result, line: { id: c.id, events: reviewed.events, wallMs: reviewed.wallMs } };
      },
      ...(o.onProgress ? { onProgress: o.onProgress } : {}),
    });
    const seats = o.setup.participants.filter((p) => p.role === 'worker').map((p) => p.name);
    return { results: summarizeReview(o.key, seats, systemNames(seats), o.failOn, results), cases: results };
  } finally {
    await core.close();
  }
}
