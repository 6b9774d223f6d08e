/**
 * Start a meeting and follow it to its digest: the one "convene and follow" path of the language
 * model tool, the chat participant and the MCP `deliberate` tool. The meeting runs in the daemon
 * like any other (the Meetings view and the room show it); the caller gets the digest, never the
 * decision: accepting it stays the person's, in the review.
 */
import type { Digest, MeetingEvent, MeetingState, RoundState, StartMeetingParams } from '@roundtable/protocol';
import { collapseWhitespace, stanceMatrix, terminationLabel, visibleText } from '@roundtable/protocol';
import type { MeetingHandle, MeetingHandles } from './meetingHandle';

export interface ConveneOptions {
  /** Abort cuts the meeting (`meeting/cut`); convene still resolves, with the digest written after the cut. */
  signal?: AbortSignal;
  /** Once per finished round. */
  onRound?: (p: RoundProgress) => void;
  onEvent?: (e: MeetingEvent, s: MeetingState) => void;
}

/**
 * One finished round. Names, gists and notes are the models' text made visible (no bidi tricks,
 * one line) but not escaped for any format: escape them where they land.
 */
export interface RoundProgress {
  round: number;
  posts: { speaker: string; model?: string; stance?: string; gist: string }[];
  judge?: string;
}

export interface ConveneResult {
  meetingId: string;
  state: MeetingState;
  /** Undefined when the meeting stopped before one: it waits for the person (consensus escalation). */
  digest: Digest | undefined;
  /** One line: where the room landed, what the person must decide, or why it failed. */
  outcome: string;
  /** True when the caller's abort cut the meeting. */
  cut: boolean;
}

const GIST_CHARS = 160;

/** A model's text as one visible line of at most `GIST_CHARS`. */
export function gistOf(text: string): string {
  const line = collapseWhitespace(visibleText(text));
  return line.length > GIST_CHARS ? `${line.slice(0, GIST_CHARS - 1)}…` : line;
}

/** The meeting has an answer for its caller: the digest is out, or the person must decide. */
function answered(s: MeetingState): boolean {
  return s.digest !== undefined || s.status === 'awaiting_human';
}

function roundProgress(s: MeetingState, r: RoundState): RoundProgress {
  const model = (name: string): string | undefined => s.participants.find((p) => p.name === name)?.model;
  const stances = stanceMatrix(s).cells;
  const speakers = r.speakers.filter((w) => r.contributions[w] || r.ballots[w] || r.failures[w] || r.stances[w]);
  const posts = speakers.map((speaker) => {
    const m = model(speaker);
    const stance = stances[speaker]?.[r.round];
    const text =
      r.contributions[speaker]?.text ??
      // A reviewer's own finding is its accept, not a vote it was asked for.
      r.ballots[speaker]?.votes.map((v) => `${v.proposed ? 'proposed' : v.vote} ${v.option}`).join(', ') ??
      (r.failures[speaker] ? `failed (${r.failures[speaker].reason}): ${r.failures[speaker].detail}` : '');
    return {
      speaker,
      ...(m ? { model: m } : {}),
      ...(stance ? { stance } : {}),
      gist: gistOf(text),
    };
  });
  const judge = r.judge?.text.trim() ? gistOf(r.judge.text) : undefined;
  return { round: r.round, posts, ...(judge ? { judge } : {}) };
}

/** What the caller reads first: the room's statement, the open question, or the failure. */
export function outcomeLine(s: MeetingState): string {
  const d = s.digest?.digest;
  if (!d) {
    const why = s.escalation?.reasons.join('; ');
    return gistOf(`Needs your decision${why ? `: ${why}` : ''}`);
  }
  if (s.closed?.reason === 'error') return gistOf(`Failed: ${s.closed.detail ?? d.noDecision ?? 'see the minutes'}`);
  if (d.noDecision) return gistOf(`No decision: ${d.noDecision}`);
  return gistOf(`${terminationLabel(d.terminatedBy)}: ${d.consensusStatement}`);
}

/**
 * Calls `onRound` once for each round as it finishes: when the next starts, or the meeting stops.
 * A round finished before the reporter first heard of the meeting is reported at the next event.
 */
function roundReporter(onRound: (p: RoundProgress) => void): (e: MeetingEvent, s: MeetingState) => void {
  let reported = 0;
  return (e, s) => {
    const stopped = e.type === 'meeting_closed' || e.type === 'escalated';
    const finished = stopped ? s.rounds.length : s.rounds.length - 1;
    for (const r of s.rounds.slice(0, finished)) {
      if (r.round <= reported) continue;
      reported = r.round;
      onRound(roundProgress(s, r));
    }
  };
}

/**
 * Starts the meeting, follows it and resolves with its digest (or its escalation). Rejects only
 * when it could not start or the daemon went away: a meeting that fails resolves with why.
 */
export async function convene(
  meetings: Pick<MeetingHandles, 'open'>,
  params: StartMeetingParams,
  opts: ConveneOptions = {},
): Promise<ConveneResult> {
  if (opts.signal?.aborted) throw new Error('cancelled before the meeting started; nothing was spent');
  const { onEvent } = opts;
  const onRound = opts.onRound && roundReporter(opts.onRound);
  // Registered as the meeting opens: the caller hears every event, the first included.
  const handle = await meetings.open(params, {
    deliver: (e, s) => {
      onEvent?.(e, s);
      onRound?.(e, s);
    },
  });
  try {
    return await answerOf(handle, opts.signal);
  } finally {
    await handle.release();
  }
}

/**
 * Follows a meeting held already to its digest (or its escalation), as `convene` does; the
 * handle stays the caller's. Abort cuts the meeting and still resolves with the digest.
 */
export async function conveneAnswer(
  handle: MeetingHandle,
  opts: Omit<ConveneOptions, 'onEvent'> = {},
): Promise<ConveneResult> {
  const off = opts.onRound ? handle.onUpdate(roundReporter(opts.onRound)) : undefined;
  try {
    return await answerOf(handle, opts.signal);
  } finally {
    off?.();
  }
}

async function answerOf(handle: MeetingHandle, signal: AbortSignal | undefined): Promise<ConveneResult> {
  const { meetingId } = handle;
  const failed = new AbortController();
  let cut = false;
  const onAbort = (): void => {
    // Once closed, the digest is on its way: there is nothing left to cut.
    if (answered(handle.state) || handle.state.status === 'closed') return;
    cut = true;
    handle
      .cut('cancelled by the caller')
      .catch((e: unknown) => failed.abort(new Error(`could not cut meeting ${meetingId}: ${(e as Error).message}`)));
  };
  try {
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
    const state = await handle.until(answered, { signal: failed.signal }).catch((e: unknown) => {
      throw failed.signal.reason instanceof Error ? failed.signal.reason : e;
    });
    return { meetingId, state, digest: state.digest?.digest, outcome: outcomeLine(state), cut };
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
}
