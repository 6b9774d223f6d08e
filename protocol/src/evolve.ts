/**
 * The reducer: `evolve(state, event) → state`, and `fold(events)`. Immutable and exhaustive:
 * a new event type that is not handled here fails the type check and the lint.
 */
import type { EventBody, EventOf, MeetingEvent, MeetingEventType } from './events';
import type { Usage } from './domain';
import type { Ballot, MeetingState, PostedMessage, RoundState, UsageTotals, VerdictState } from './state';
import { currentRound, initialState } from './state';

function addUsage(totals: Record<string, UsageTotals>, key: string, u: Usage): Record<string, UsageTotals> {
  const t = totals[key] ?? { promptTokens: 0, completionTokens: 0, cachedTokens: 0, calls: 0, estimatedCalls: 0 };
  return {
    ...totals,
    [key]: {
      promptTokens: t.promptTokens + u.promptTokens,
      completionTokens: t.completionTokens + u.completionTokens,
      cachedTokens: t.cachedTokens + (u.cachedTokens ?? 0),
      calls: t.calls + 1,
      estimatedCalls: t.estimatedCalls + (u.source === 'estimate' ? 1 : 0),
      ...(t.reasoningTokens !== undefined || u.reasoningTokens !== undefined
        ? { reasoningTokens: (t.reasoningTokens ?? 0) + (u.reasoningTokens ?? 0) }
        : {}),
    },
  };
}

/**
 * Tokens an event speaks into the room, counted against the budget. One definition: the fold
 * and the engine's budget rules both read it.
 */
export function spokenTokensOf(e: EventBody): number {
  switch (e.type) {
    case 'message_posted':
    case 'human_posted':
    case 'judge_feedback':
    case 'ballot_recorded':
    case 'tool_called':
      return e.tokens;
    default:
      return 0;
  }
}

/** A deep copy of event data (plain JSON), so the state never shares an object with an event. */
function copy<T>(v: T): T {
  return JSON.parse(JSON.stringify(v)) as T;
}

/** Replaces the current round when it is round `n`; other states are returned unchanged. */
function withRound(s: MeetingState, n: number, f: (r: RoundState) => RoundState): MeetingState {
  const r = currentRound(s);
  if (!r || r.round !== n) return s;
  return { ...s, rounds: [...s.rounds.slice(0, -1), f(r)] };
}

/**
 * Replaces round `n` wherever it is: the rolling summary of a round is written one round late
 * (while the next round is judged), so its event may name the round before the current one.
 */
function withAnyRound(s: MeetingState, n: number, f: (r: RoundState) => RoundState): MeetingState {
  const i = s.rounds.findIndex((r) => r.round === n);
  if (i < 0) return s;
  return { ...s, rounds: s.rounds.map((r, k) => (k === i ? f(r) : r)) };
}

function postedOf(e: EventOf<'message_posted'> | EventOf<'human_posted'>): PostedMessage {
  const human = e.type === 'human_posted';
  return {
    messageId: e.messageId,
    from: e.from,
    role: human ? 'human' : e.role,
    round: e.round,
    kind: human ? 'human' : e.kind,
    text: e.text,
    tokens: e.tokens,
    at: e.at,
    seq: e.seq,
    ...(!human && e.thinkingTokens !== undefined ? { thinkingTokens: e.thinkingTokens } : {}),
    ...(!human && e.thinking ? { thinking: e.thinking } : {}),
  };
}

type Reducer<K extends MeetingEventType> = (s: MeetingState, e: EventOf<K>) => MeetingState;

function meetingOpened(s: MeetingState, e: EventOf<'meeting_opened'>): MeetingState {
  const opened: MeetingState = {
    ...s,
    meetingId: e.meetingId,
    topic: e.topic,
    mode: e.mode,
    config: copy(e.config),
    participants: copy(e.participants),
    status: 'running',
    openedAt: e.at,
  };
  if (e.providers) opened.providers = copy(e.providers);
  if (e.options) opened.requestedOptions = [...e.options];
  if (e.workspace) opened.workspace = e.workspace;
  return opened;
}

function contextAttached(s: MeetingState, e: EventOf<'context_attached'>): MeetingState {
  const { type: _t, meetingId: _m, seq, at: _a, v: _v, ...body } = e;
  return { ...s, context: { ...copy(body), seq } };
}

function toolCalled(s: MeetingState, e: EventOf<'tool_called'>): MeetingState {
  const summary = e.result.split('\n')[0]?.slice(0, 200) ?? '';
  const call = {
    round: e.round,
    participant: e.participant,
    tool: e.tool,
    args: e.args,
    ok: e.ok,
    tokens: e.tokens,
  };
  return {
    ...s,
    toolCalls: [...(s.toolCalls ?? []), { ...call, seq: e.seq, summary }],
    spokenTokens: s.spokenTokens + e.tokens,
  };
}

function participantJoined(s: MeetingState, e: EventOf<'participant_joined'>): MeetingState {
  if (s.participants.some((p) => p.name === e.participant.name)) return s;
  return { ...s, participants: [...s.participants, copy(e.participant)] };
}

function roundStarted(s: MeetingState, e: EventOf<'round_started'>): MeetingState {
  return {
    ...s,
    rounds: [
      ...s.rounds,
      {
        round: e.round,
        speakers: [...e.speakers],
        final: e.final,
        startedAt: e.at,
        contributions: {},
        stances: {},
        failures: {},
        humanPosts: [],
        ballots: {},
      },
    ],
  };
}

function messagePosted(s: MeetingState, e: EventOf<'message_posted'>): MeetingState {
  const m = postedOf(e);
  let next: MeetingState = { ...s, messages: [...s.messages, m], spokenTokens: s.spokenTokens + e.tokens };
  if (e.kind === 'briefing') next.briefing = m;
  if (e.kind === 'contribution') {
    next = withRound(next, e.round, (r) => ({ ...r, contributions: { ...r.contributions, [e.from]: m } }));
  }
  return next;
}

function humanPosted(s: MeetingState, e: EventOf<'human_posted'>): MeetingState {
  const m = postedOf(e);
  const next: MeetingState = { ...s, messages: [...s.messages, m], spokenTokens: s.spokenTokens + e.tokens };
  const r = currentRound(s);
  if (!r) return { ...next, pendingHumanPosts: [...s.pendingHumanPosts, m] };
  return withRound(next, r.round, (x) => ({ ...x, humanPosts: [...x.humanPosts, m] }));
}

function stanceRecorded(s: MeetingState, e: EventOf<'stance_recorded'>): MeetingState {
  const next = withRound(s, e.round, (r) => ({
    ...r,
    stances: { ...r.stances, [e.participant]: { stance: e.stance, passed: e.passed } },
  }));
  if (!e.passed || next.passed.includes(e.participant)) return next;
  return { ...next, passed: [...next.passed, e.participant] };
}

function turnFailed(s: MeetingState, e: EventOf<'turn_failed'>): MeetingState {
  // Round 0 is the proposal step of a consensus meeting: there is no round to hold it.
  if (e.round === 0 && s.mode === 'consensus') {
    const failure = { reason: e.reason, detail: e.detail };
    return { ...s, proposalFailures: { ...s.proposalFailures, [e.participant]: failure } };
  }
  return withRound(s, e.round, (r) => ({
    ...r,
    failures: { ...r.failures, [e.participant]: { reason: e.reason, detail: e.detail } },
  }));
}

function seatLeft(s: MeetingState, e: EventOf<'seat_left'>): MeetingState {
  return { ...s, left: { ...s.left, [e.participant]: { round: e.round, reason: e.reason } } };
}

function consensusEvaluated(s: MeetingState, e: EventOf<'consensus_evaluated'>): MeetingState {
  const { level, agree, disagree, neutral, voters } = e;
  return withRound(s, e.round, (r) => ({ ...r, consensus: { level, agree, disagree, neutral, voters } }));
}

function judgeFeedback(s: MeetingState, e: EventOf<'judge_feedback'>): MeetingState {
  const judge: NonNullable<RoundState['judge']> = { text: e.text, corrections: copy(e.corrections), seq: e.seq };
  if (e.converged !== undefined) judge.converged = e.converged;
  return withRound({ ...s, spokenTokens: s.spokenTokens + e.tokens }, e.round, (r) => ({ ...r, judge }));
}

function summaryUpdated(s: MeetingState, e: EventOf<'summary_updated'>): MeetingState {
  return withAnyRound({ ...s, summary: e.text, summarySeq: e.seq }, e.round, (r) => ({ ...r, summary: e.text }));
}

function budgetWarning(s: MeetingState, e: EventOf<'budget_warning'>): MeetingState {
  return { ...s, finalRound: e.finalRound };
}

function usageRecorded(s: MeetingState, e: EventOf<'usage_recorded'>): MeetingState {
  return {
    ...s,
    usageByParticipant: addUsage(s.usageByParticipant, e.participant, e.usage),
    usageByRole: addUsage(s.usageByRole, e.role, e.usage),
    ...(e.round !== undefined && e.purpose !== 'briefing' && e.purpose !== 'digest'
      ? { usageByRound: addUsage(s.usageByRound ?? {}, String(e.round), e.usage) }
      : {}),
  };
}

function meetingInterrupted(s: MeetingState, e: EventOf<'meeting_interrupted'>): MeetingState {
  return { ...s, interruptions: [...s.interruptions, { at: e.at, detail: e.detail }] };
}

function closeRequested(s: MeetingState, e: EventOf<'close_requested'>): MeetingState {
  // The first request wins, except that a cut overrides a graceful close still waiting.
  if (s.closeRequest && !(s.closeRequest.graceful && !e.graceful)) return s;
  const closeRequest: NonNullable<MeetingState['closeRequest']> = { reason: e.reason, graceful: e.graceful };
  if (e.detail !== undefined) closeRequest.detail = e.detail;
  return { ...s, closeRequest };
}

function meetingClosed(s: MeetingState, e: EventOf<'meeting_closed'>): MeetingState {
  const { closeRequest: _done, ...rest } = s;
  return {
    ...rest,
    status: 'closed',
    closedAt: e.at,
    closed: e.detail === undefined ? { reason: e.reason } : { reason: e.reason, detail: e.detail },
  };
}

function digestReady(s: MeetingState, e: EventOf<'digest_ready'>): MeetingState {
  return { ...s, digest: { digest: copy(e.digest), text: e.text } };
}

function optionsProposed(s: MeetingState, e: EventOf<'options_proposed'>): MeetingState {
  const next = { ...s, proposals: { ...s.proposals, [e.worker]: [...e.options] } };
  return e.findings ? { ...next, proposedFindings: { ...s.proposedFindings, [e.worker]: copy(e.findings) } } : next;
}

function optionsSet(s: MeetingState, e: EventOf<'options_set'>): MeetingState {
  return { ...s, options: copy(e.options), optionsSeq: e.seq };
}

function ballotRecorded(s: MeetingState, e: EventOf<'ballot_recorded'>): MeetingState {
  const b: Ballot = { votes: copy(e.votes), valid: e.valid, retried: e.retried, seq: e.seq };
  if (e.invalidReason !== undefined) b.invalidReason = e.invalidReason;
  if (e.fromReasoning) b.fromReasoning = true;
  return withRound({ ...s, spokenTokens: s.spokenTokens + e.tokens }, e.round, (r) => ({
    ...r,
    ballots: { ...r.ballots, [e.worker]: b },
  }));
}

function verdictComputed(s: MeetingState, e: EventOf<'verdict_computed'>): MeetingState {
  const verdict: VerdictState = {
    results: copy(e.results),
    actualConsensus: e.actualConsensus,
    consensusThreshold: e.consensusThreshold,
    conflicts: copy(e.conflicts),
    reasons: [...e.reasons],
    final: e.final,
  };
  if (e.decision !== undefined) verdict.decision = e.decision;
  return withRound(s, e.round, (r) => ({ ...r, verdict }));
}

function escalated(s: MeetingState, e: EventOf<'escalated'>): MeetingState {
  const next: MeetingState = { ...s, status: 'awaiting_human', escalation: { reasons: [...e.reasons], at: e.at } };
  const r = currentRound(s);
  return r ? withRound(next, r.round, (x) => ({ ...x, escalated: [...e.reasons] })) : next;
}

function humanResolved(s: MeetingState, e: EventOf<'human_resolved'>): MeetingState {
  const { escalation: _answered, ...rest } = s;
  const answer: NonNullable<RoundState['resolution']> = { action: e.action };
  if (e.option !== undefined) answer.option = e.option;
  if (e.instruction !== undefined) answer.instruction = e.instruction;
  const next: MeetingState = {
    ...rest,
    status: 'running',
    resolutions: [...s.resolutions, { ...answer, at: e.at }],
  };
  const r = currentRound(s);
  return r ? withRound(next, r.round, (x) => ({ ...x, resolution: answer })) : next;
}

function decisionRecorded(s: MeetingState, e: EventOf<'decision_recorded'>): MeetingState {
  const decision: NonNullable<MeetingState['decision']> = { decision: e.decision, at: e.at };
  if (e.instruction !== undefined) decision.instruction = e.instruction;
  if (e.digestText !== undefined) decision.digestText = e.digestText;
  if (e.decision !== 'another_round') return { ...s, decision };
  // The meeting reopens for exactly one more round, which is final. The old digest and the
  // decision on it are gone: the new digest is decided afresh (Accept/Reject again).
  const { closed: _c, closedAt: _ca, digest: _d, decision: _old, ...rest } = s;
  return { ...rest, status: 'running', reopenedAfterRound: currentRound(s)?.round ?? 0 };
}

/**
 * One reducer per event type. The mapped type makes the table exhaustive: a new event type
 * without a reducer here fails the type check.
 */
const REDUCERS: { [K in MeetingEventType]: Reducer<K> } = {
  meeting_opened: meetingOpened,
  context_attached: contextAttached,
  tool_called: toolCalled,
  participant_joined: participantJoined,
  round_started: roundStarted,
  message_posted: messagePosted,
  human_posted: humanPosted,
  stance_recorded: stanceRecorded,
  turn_failed: turnFailed,
  seat_left: seatLeft,
  consensus_evaluated: consensusEvaluated,
  judge_feedback: judgeFeedback,
  summary_updated: summaryUpdated,
  budget_warning: budgetWarning,
  usage_recorded: usageRecorded,
  meeting_interrupted: meetingInterrupted,
  close_requested: closeRequested,
  meeting_closed: meetingClosed,
  digest_ready: digestReady,
  options_proposed: optionsProposed,
  options_set: optionsSet,
  ballot_recorded: ballotRecorded,
  verdict_computed: verdictComputed,
  escalated,
  human_resolved: humanResolved,
  decision_recorded: decisionRecorded,
};

/**
 * Applies one event and returns the next state. Never mutates `s` nor keeps a reference to `e`:
 * changed parts are copied, untouched parts are shared with `s` (structural sharing), so one
 * event costs about the size of what it changes. The `messages` list is copied on each post,
 * linear in the posts so far (hundreds in a long meeting; measured in the `overhead` bench).
 */
export function evolve(prev: MeetingState, e: MeetingEvent): MeetingState {
  // An invariant, not the client's gap handling (that is MeetingMirror.apply, which never passes a
  // gap on): a stored log folded with a hole in it is corrupt, and must fail loudly, not fold.
  if (e.seq !== prev.lastSeq + 1) {
    throw new Error(`event ${e.seq} of meeting ${e.meetingId} does not follow ${prev.lastSeq}: the log has a gap`);
  }
  const s: MeetingState = { ...prev, lastSeq: e.seq };
  // The table is keyed by `e.type`, so the reducer found takes exactly this event's type.
  const reducer = REDUCERS[e.type] as Reducer<MeetingEventType>;
  return reducer(s, e);
}

/** Same as `evolve`; kept for callers written before the reducer became immutable. */
export const reduce = evolve;

export function fold(events: Iterable<MeetingEvent>): MeetingState {
  let s = initialState();
  for (const e of events) s = evolve(s, e);
  return s;
}
