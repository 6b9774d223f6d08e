/**
 * Meeting state is a pure fold over the log: `events.reduce(reduce, initialState())`.
 * It lives in protocol/ so the daemon, the extension and the webview derive exactly the same
 * state from the same events. No other source of truth exists.
 */
import type {
  Conflict,
  ConsensusLevel,
  ConsensusOption,
  OptionResult,
  OptionVote,
  Digest,
  DecisionKind,
  MeetingConfig,
  MeetingEvent,
  MeetingMode,
  Participant,
  ProviderConfig,
  Role,
  StanceCell,
  TerminationReason,
  Usage,
} from './events';
import { DEFAULT_CONFIG } from './events';

export interface PostedMessage {
  messageId: string;
  from: string;
  role: Role | 'human';
  round: number;
  kind: string;
  text: string;
  tokens: number;
  at: number;
}

export interface RoundState {
  round: number;
  speakers: string[];
  final: boolean;
  startedAt: number;
  /** Contributions by worker name. */
  contributions: Record<string, PostedMessage>;
  stances: Record<string, { stance: StanceCell; passed: boolean }>;
  failures: Record<string, { reason: 'timeout' | 'error'; detail: string }>;
  consensus?: { level: ConsensusLevel; agree: number; disagree: number; neutral: number; voters: number };
  judge?: { text: string; corrections: { worker: string; text: string }[]; converged?: string };
  summary?: string;
  /** Human posts made while this round ran; shown to workers in the next round. */
  humanPosts: PostedMessage[];
  /** Consensus mode: ballots by worker. */
  ballots: Record<string, Ballot>;
  /** Consensus mode: verdicts computed after the round. */
  verdict?: VerdictState;
  /** Consensus mode: set when the round's verdict was escalated to the human. */
  escalated?: string[];
  /** Consensus mode: the human's answer to that escalation. */
  resolution?: { action: 'pick' | 'another_round' | 'defer'; option?: string; instruction?: string };
}

export interface Ballot {
  votes: OptionVote[];
  valid: boolean;
  retried: boolean;
  invalidReason?: string;
}

export interface VerdictState {
  results: OptionResult[];
  decision?: string;
  actualConsensus: number;
  consensusThreshold: number;
  conflicts: Conflict[];
  reasons: string[];
  final: boolean;
}

export interface UsageTotals {
  promptTokens: number;
  completionTokens: number;
  calls: number;
  estimatedCalls: number;
}

export interface MeetingState {
  meetingId: string;
  topic: string;
  mode: MeetingMode;
  config: MeetingConfig;
  participants: Participant[];
  providers?: ProviderConfig;
  /** Folder that cited evidence is checked against. */
  workspace?: string;
  /** Consensus mode: options given when the meeting was opened. */
  requestedOptions?: string[];
  /** Consensus mode: options proposed by each worker. */
  proposals: Record<string, string[]>;
  /** Consensus mode: the options put to the vote. */
  options: ConsensusOption[];
  /** Consensus mode: set while the meeting waits for the human. */
  escalation?: { reasons: string[]; at: number };
  /** Consensus mode: the human's answers to escalations, in order. */
  resolutions: { action: 'pick' | 'another_round' | 'defer'; option?: string; instruction?: string; at: number }[];
  status: 'new' | 'running' | 'awaiting_human' | 'closed';
  openedAt: number;
  closedAt?: number;
  briefing?: PostedMessage;
  rounds: RoundState[];
  /** Workers who passed and sit out the remaining rounds. */
  passed: string[];
  /** Latest rolling summary. */
  summary: string;
  /** Tokens spoken in the room so far (counted against the budget). */
  spokenTokens: number;
  /** Round announced as final after the 80% budget mark, if any. */
  finalRound?: number;
  /** All posts in order, for rendering. */
  messages: PostedMessage[];
  /** Human posts made before the first round started. */
  pendingHumanPosts: PostedMessage[];
  usageByParticipant: Record<string, UsageTotals>;
  usageByRole: Record<string, UsageTotals>;
  interruptions: { at: number; detail: string }[];
  /** A close asked for and logged but not yet carried out (honoured after a restart too). */
  closeRequest?: { reason: TerminationReason; detail?: string; graceful: boolean };
  closed?: { reason: TerminationReason; detail?: string };
  digest?: { digest: Digest; text: string };
  decision?: { decision: DecisionKind; instruction?: string; digestText?: string; at: number };
  /** Set when a human asked for another round after the meeting closed: the round it reopened after. */
  reopenedAfterRound?: number;
  lastSeq: number;
}

export function initialState(): MeetingState {
  return {
    meetingId: '',
    topic: '',
    mode: 'roundtable',
    config: { ...DEFAULT_CONFIG },
    participants: [],
    status: 'new',
    openedAt: 0,
    rounds: [],
    passed: [],
    summary: '',
    spokenTokens: 0,
    messages: [],
    proposals: {},
    options: [],
    resolutions: [],
    pendingHumanPosts: [],
    usageByParticipant: {},
    usageByRole: {},
    interruptions: [],
    lastSeq: 0,
  };
}

function addUsage(totals: Record<string, UsageTotals>, key: string, u: Usage): void {
  const t = (totals[key] ??= { promptTokens: 0, completionTokens: 0, calls: 0, estimatedCalls: 0 });
  t.promptTokens += u.promptTokens;
  t.completionTokens += u.completionTokens;
  t.calls += 1;
  if (u.source === 'estimate') t.estimatedCalls += 1;
}

export function currentRound(s: MeetingState): RoundState | undefined {
  return s.rounds[s.rounds.length - 1];
}

export function workersOf(s: MeetingState): Participant[] {
  return s.participants.filter((p) => p.role === 'worker');
}

/**
 * Applies one event. Mutates and returns `s` for speed (the engine folds thousands of events);
 * callers that need immutability fold into a fresh `initialState()`.
 */
export function reduce(s: MeetingState, e: MeetingEvent): MeetingState {
  if (e.seq !== s.lastSeq + 1) {
    throw new Error(`event ${e.seq} of meeting ${e.meetingId} does not follow ${s.lastSeq}: the log has a gap`);
  }
  s.lastSeq = e.seq;
  const round = currentRound(s);
  switch (e.type) {
    case 'meeting_opened':
      s.meetingId = e.meetingId;
      s.topic = e.topic;
      s.mode = e.mode;
      s.config = e.config;
      s.participants = [...e.participants];
      if (e.providers) s.providers = e.providers;
      if (e.options) s.requestedOptions = e.options;
      if (e.workspace) s.workspace = e.workspace;
      s.status = 'running';
      s.openedAt = e.at;
      break;
    case 'participant_joined':
      if (!s.participants.some((p) => p.name === e.participant.name)) s.participants.push(e.participant);
      break;
    case 'round_started':
      s.rounds.push({
        round: e.round,
        speakers: e.speakers,
        final: e.final,
        startedAt: e.at,
        contributions: {},
        stances: {},
        failures: {},
        humanPosts: [],
        ballots: {},
      });
      break;
    case 'message_posted': {
      const m: PostedMessage = {
        messageId: e.messageId,
        from: e.from,
        role: e.role,
        round: e.round,
        kind: e.kind,
        text: e.text,
        tokens: e.tokens,
        at: e.at,
      };
      s.messages.push(m);
      s.spokenTokens += e.tokens;
      if (e.kind === 'briefing') s.briefing = m;
      if (e.kind === 'contribution' && round && round.round === e.round) round.contributions[e.from] = m;
      break;
    }
    case 'human_posted': {
      const m: PostedMessage = {
        messageId: e.messageId,
        from: e.from,
        role: 'human',
        round: e.round,
        kind: 'human',
        text: e.text,
        tokens: e.tokens,
        at: e.at,
      };
      s.messages.push(m);
      s.spokenTokens += e.tokens;
      if (round) round.humanPosts.push(m);
      else s.pendingHumanPosts.push(m);
      break;
    }
    case 'stance_recorded':
      if (round && round.round === e.round) round.stances[e.participant] = { stance: e.stance, passed: e.passed };
      if (e.passed && !s.passed.includes(e.participant)) s.passed.push(e.participant);
      break;
    case 'turn_failed':
      if (round && round.round === e.round) round.failures[e.participant] = { reason: e.reason, detail: e.detail };
      break;
    case 'consensus_evaluated':
      if (round && round.round === e.round) {
        round.consensus = {
          level: e.level,
          agree: e.agree,
          disagree: e.disagree,
          neutral: e.neutral,
          voters: e.voters,
        };
      }
      break;
    case 'judge_feedback': {
      if (round && round.round === e.round) {
        round.judge = { text: e.text, corrections: e.corrections };
        if (e.converged !== undefined) round.judge.converged = e.converged;
      }
      s.spokenTokens += e.tokens;
      break;
    }
    case 'summary_updated':
      s.summary = e.text;
      if (round && round.round === e.round) round.summary = e.text;
      break;
    case 'budget_warning':
      s.finalRound = e.finalRound;
      break;
    case 'usage_recorded':
      addUsage(s.usageByParticipant, e.participant, e.usage);
      addUsage(s.usageByRole, e.role, e.usage);
      break;
    case 'meeting_interrupted':
      s.interruptions.push({ at: e.at, detail: e.detail });
      break;
    case 'close_requested':
      // The first request wins, except that a cut overrides a graceful close still waiting.
      if (!s.closeRequest || (s.closeRequest.graceful && !e.graceful)) {
        s.closeRequest = { reason: e.reason, graceful: e.graceful };
        if (e.detail !== undefined) s.closeRequest.detail = e.detail;
      }
      break;
    case 'meeting_closed':
      delete s.closeRequest;
      s.status = 'closed';
      s.closedAt = e.at;
      s.closed = e.detail === undefined ? { reason: e.reason } : { reason: e.reason, detail: e.detail };
      break;
    case 'digest_ready':
      s.digest = { digest: e.digest, text: e.text };
      break;
    case 'options_proposed':
      s.proposals[e.worker] = e.options;
      break;
    case 'options_set':
      s.options = e.options;
      break;
    case 'ballot_recorded':
      if (round && round.round === e.round) {
        const b: Ballot = { votes: e.votes, valid: e.valid, retried: e.retried };
        if (e.invalidReason !== undefined) b.invalidReason = e.invalidReason;
        round.ballots[e.worker] = b;
      }
      s.spokenTokens += e.tokens;
      break;
    case 'verdict_computed':
      if (round && round.round === e.round) {
        round.verdict = {
          results: e.results,
          actualConsensus: e.actualConsensus,
          consensusThreshold: e.consensusThreshold,
          conflicts: e.conflicts,
          reasons: e.reasons,
          final: e.final,
        };
        if (e.decision !== undefined) round.verdict.decision = e.decision;
      }
      break;
    case 'escalated':
      s.status = 'awaiting_human';
      s.escalation = { reasons: e.reasons, at: e.at };
      if (round) round.escalated = e.reasons;
      break;
    case 'human_resolved': {
      s.status = 'running';
      delete s.escalation;
      const r: MeetingState['resolutions'][number] = { action: e.action, at: e.at };
      if (e.option !== undefined) r.option = e.option;
      if (e.instruction !== undefined) r.instruction = e.instruction;
      s.resolutions.push(r);
      if (round) {
        const { at: _at, ...answer } = r;
        round.resolution = answer;
      }
      break;
    }
    case 'decision_recorded':
      s.decision = { decision: e.decision, at: e.at };
      if (e.instruction !== undefined) s.decision.instruction = e.instruction;
      if (e.digestText !== undefined) s.decision.digestText = e.digestText;
      if (e.decision === 'another_round') {
        // The meeting reopens for exactly one more round, which is final.
        const last = s.rounds[s.rounds.length - 1]?.round ?? 0;
        s.status = 'running';
        delete s.closed;
        delete s.closedAt;
        delete s.digest;
        s.reopenedAfterRound = last;
      }
      break;
  }
  return s;
}

export function fold(events: Iterable<MeetingEvent>): MeetingState {
  let s = initialState();
  for (const e of events) s = reduce(s, e);
  return s;
}

/** Stance matrix: worker -> round -> cell ('' when the worker was not asked that round). */
export function stanceMatrix(s: MeetingState): {
  workers: string[];
  rounds: number[];
  cells: Record<string, Record<number, StanceCell | ''>>;
} {
  const workers = workersOf(s).map((p) => p.name);
  const rounds = s.rounds.map((r) => r.round);
  const cells: Record<string, Record<number, StanceCell | ''>> = {};
  for (const w of workers) {
    const row: Record<number, StanceCell | ''> = {};
    for (const r of s.rounds) {
      const st = r.stances[w];
      row[r.round] = st ? (st.passed && st.stance === 'UNKNOWN' ? 'PASS' : st.stance) : '';
    }
    cells[w] = row;
  }
  return { workers, rounds, cells };
}

/** Each worker's last recorded stance (ignoring rounds it sat out). */
export function finalStances(s: MeetingState): Record<string, StanceCell> {
  const out: Record<string, StanceCell> = {};
  for (const r of s.rounds) for (const [w, st] of Object.entries(r.stances)) out[w] = st.stance;
  return out;
}
