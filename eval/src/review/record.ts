/**
 * One reviewed case as the checkpoint keeps it — the review meeting's whole log — and what it
 * scores. Every figure is read from the log by one function (`scoreCase`), for a case just
 * reviewed and for one resumed from a checkpoint alike: the log is folded into the meeting's state
 * as any client folds it, and nothing stored beside it (a count, a verdict of ours) is believed.
 * The log is folded once, where it is read (the meeting's handle as the review ran, or the check of
 * a checkpoint's line), and the state goes along with it.
 */
import type { FailOn, MeetingEvent, MeetingState, Participant, Prices } from '@roundtable/protocol';
import { REVIEW_EXIT, checkEvent, fold, settles } from '@roundtable/protocol';
import type { ReviewCase } from './cases';
import { scoreFindings, type CaseScore } from './match';
import { reviewSystems, type ReviewExit } from './systems';

/** What a checkpoint belongs to: resuming with another set, panel or provider would mix two experiments. */
export interface ReviewRunKey {
  kind: 'review';
  /** `builtin`, or the set folder's absolute path. */
  set: string;
  /** caseSetHash of the whole set (before --limit). */
  setHash: string;
  models: string[];
  provider: 'openai' | 'scripted';
}

export function sameReviewKey(a: ReviewRunKey, b: ReviewRunKey): boolean {
  const canon = (k: ReviewRunKey) => JSON.stringify([k.kind, k.set, k.setHash, k.models, k.provider]);
  return canon(a) === canon(b);
}

/** One checkpoint line: a case and its review meeting's log. */
export interface CaseLine {
  id: string;
  events: MeetingEvent[];
  wallMs: number;
}

/** A case's log with the state it folds to (`fold(events)`), as scoreCase reads it. */
export interface FoldedLine extends Pick<CaseLine, 'events' | 'wallMs'> {
  state: MeetingState;
}

/** One system on one case. */
export interface SystemCase extends CaseScore {
  name: string;
  /** Findings it reported (0 when it could not review). */
  reported: number;
  exit: ReviewExit;
  billedTokens: number;
  calls: number;
  costUsd?: number;
  unpricedModels: string[];
}

export interface CaseResult {
  id: string;
  /** No label: a clean control (the gate should pass it, exit 0). */
  clean: boolean;
  labels: number;
  wallMs: number;
  systems: SystemCase[];
}

/** The exit a careful reviewer's gate gives: 1 when the case has a label, else 0. */
export const expectedExit = (labels: number): 0 | 1 => (labels > 0 ? REVIEW_EXIT.failed : REVIEW_EXIT.clean);

/** A case's figures from its review meeting's log. */
export function scoreCase(
  c: ReviewCase,
  line: FoldedLine,
  participants: readonly Participant[],
  failOn: FailOn,
  prices?: Prices,
): CaseResult {
  const systems = reviewSystems(line.state, line.events, participants, failOn, prices).map((run): SystemCase => {
    const couldNot = run.exit === REVIEW_EXIT.couldNotReview;
    const score = couldNot ? { tp: 0, fp: 0, dup: 0, labels: c.labels.length } : scoreFindings(run.findings, c.labels);
    return {
      name: run.name,
      ...score,
      reported: run.findings.length,
      exit: run.exit,
      billedTokens: run.bill.billedTokens,
      calls: run.bill.calls,
      ...(run.bill.costUsd !== undefined ? { costUsd: run.bill.costUsd } : {}),
      unpricedModels: run.bill.unpricedModels,
    };
  });
  return { id: c.id, clean: c.labels.length === 0, labels: c.labels.length, wallMs: line.wallMs, systems };
}

const seatsOf = (ps: readonly { name: string; role: string; provider: string; model: string }[]) =>
  JSON.stringify(ps.map((p) => [p.name, p.role, p.provider, p.model]));

/**
 * A checkpoint line's events when they are a finished review of this case by this panel: every
 * event valid by the log's own schema, in order, opened with exactly this panel (a forged extra
 * reviewer could outvote the real ones), a review, settled. Undefined otherwise: the case is
 * reviewed again.
 */
export function eventsOfLine(
  v: unknown,
  c: ReviewCase,
  participants: readonly Participant[],
): (CaseLine & FoldedLine) | undefined {
  const r = v as Partial<CaseLine> | null;
  if (!r || typeof r !== 'object' || r.id !== c.id || !Array.isArray(r.events)) return undefined;
  const events: MeetingEvent[] = [];
  for (const [i, raw] of r.events.entries()) {
    const e = checkEvent(raw);
    if (!e.ok || e.value.seq !== i + 1) return undefined;
    events.push(e.value);
  }
  const opened = events[0];
  if (opened?.type !== 'meeting_opened' || seatsOf(opened.participants) !== seatsOf(participants)) return undefined;
  let state: MeetingState;
  try {
    state = fold(events);
  } catch {
    return undefined;
  }
  if (!state.config.review || !events.some(settles)) return undefined;
  const wallMs = typeof r.wallMs === 'number' && Number.isFinite(r.wallMs) && r.wallMs >= 0 ? r.wallMs : 0;
  return { id: c.id, events, wallMs, state };
}
