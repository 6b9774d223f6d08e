/**
 * Meeting state is a pure fold over the log: `events.reduce(evolve, initialState())`.
 * It lives in protocol/ so the daemon, the extension and the webview derive exactly the same
 * state from the same events. No other source of truth exists.
 */
import type { MeetingEvent } from './events';
import type { Conflict, ConsensusOption, DecisionKind, OptionResult, OptionVote, Resolution } from './consensus';
import type {
  ConsensusLevel,
  Digest,
  MeetingConfig,
  MeetingMode,
  Participant,
  ProviderConfig,
  Role,
  StanceCell,
  TerminationReason,
} from './domain';
import { DEFAULT_CONFIG, plannedRounds } from './domain';
import type { ContextAttached, ToolCalled } from './context';
import type { MeetingSummary } from './messageSchemas';
import type { Finding } from './review';

export interface PostedMessage {
  messageId: string;
  from: string;
  role: Role | 'human';
  round: number;
  kind: string;
  text: string;
  tokens: number;
  at: number;
  /** Log seq of the event that carried it (the envelope's seq= when a model reads it). */
  seq: number;
  /** The model's thinking before the reply (never spoken; shown folded). */
  thinking?: string;
  /** Tokens of that thinking. */
  thinkingTokens?: number;
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
  judge?: { text: string; corrections: { worker: string; text: string }[]; converged?: string; seq: number };
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
  resolution?: Resolution;
}

export interface Ballot {
  votes: OptionVote[];
  valid: boolean;
  retried: boolean;
  /** Log seq of the ballot_recorded event. */
  seq: number;
  invalidReason?: string;
  /** The ballot was the JSON the server put in the reasoning field, the content being empty. */
  fromReasoning?: true;
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
  /** Prompt tokens served from the server's prefix cache (0 where the server does not say). */
  cachedTokens: number;
  calls: number;
  estimatedCalls: number;
  /** Of `completionTokens`, how many were thinking (present once a call reported or showed any). */
  reasoningTokens?: number;
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
  /** Workspace context read at start, with the log seq of its event. */
  context?: ContextAttached & { seq: number };
  /** Read-only tool calls made by models, in order (results stay in the log). */
  toolCalls?: (Omit<ToolCalled, 'result'> & { seq: number; summary: string })[];
  /** Consensus mode: options given when the meeting was opened. */
  requestedOptions?: string[];
  /** Consensus mode: options proposed by each worker. */
  proposals: Record<string, string[]>;
  /** A review: each reviewer's findings as proposed (before merging and the mechanical checks). */
  proposedFindings?: Record<string, Finding[]>;
  /** Consensus mode: proposal calls that failed (they have no round to be recorded in). */
  proposalFailures?: Record<string, { reason: 'timeout' | 'error'; detail: string }>;
  /** Consensus mode: the options put to the vote. */
  options: ConsensusOption[];
  /** Log seq of the options_set event (0 before it). */
  optionsSeq: number;
  /** Consensus mode: set while the meeting waits for the human. */
  escalation?: { reasons: string[]; at: number };
  /** Consensus mode: the human's answers to escalations, in order. */
  resolutions: (Resolution & { at: number })[];
  status: 'new' | 'running' | 'awaiting_human' | 'closed';
  openedAt: number;
  closedAt?: number;
  briefing?: PostedMessage;
  rounds: RoundState[];
  /** Workers who passed and sit out the remaining rounds. */
  passed: string[];
  /** Workers who left for good (their model failed), with the round and why; absent when none did. */
  left?: Record<string, { round: number; reason: string }>;
  /** Latest rolling summary. */
  summary: string;
  /** Log seq of the summary_updated event that wrote it (0 before the first). */
  summarySeq: number;
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
  /** Billed usage of the turns, judge and summary calls of each round (briefing and digest left out). */
  usageByRound?: Record<string, UsageTotals>;
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
    summarySeq: 0,
    optionsSeq: 0,
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

export function currentRound(s: MeetingState): RoundState | undefined {
  return s.rounds[s.rounds.length - 1];
}

/**
 * The most rounds the meeting runs as it stands, for "round 2 of 3": the planned ones
 * (`plannedRounds`), the round a roundtable's budget announced as its last, and the round running
 * now once it is final (a round the human asked for after the digest runs past the plan).
 */
export function roundLimit(s: MeetingState): number {
  const r = currentRound(s);
  if (r?.final) return r.round;
  const planned = plannedRounds(s.mode, s.config);
  // Only the roundtable's planner stops at the announced round; a consensus meeting runs its challenge rounds.
  const limit = s.mode === 'roundtable' && s.finalRound !== undefined ? Math.min(planned, s.finalRound) : planned;
  return Math.max(limit, r?.round ?? 0);
}

export function workersOf(s: MeetingState): Participant[] {
  return s.participants.filter((p) => p.role === 'worker');
}

/** The workers still seated: every worker but those who left (their voices are the tallies'). */
export function remainingWorkers(s: Pick<MeetingState, 'participants' | 'left'>): Participant[] {
  return s.participants.filter((p) => p.role === 'worker' && !s.left?.[p.name]);
}

/** "grace's server failed (HTTP 429 …)" for each worker that left, or '' when none did. */
export function whyLeft(s: Pick<MeetingState, 'left'>): string {
  return Object.entries(s.left ?? {})
    .map(([w, l]) => `${w}'s server failed (${l.reason})`)
    .join('; ');
}

/** "decided by 3 of 4 workers: grace's server failed (HTTP 429 …)", or undefined when no worker left. */
export function seatsLine(s: Pick<MeetingState, 'participants' | 'left'>): string | undefined {
  const why = whyLeft(s);
  if (!why) return undefined;
  const all = s.participants.filter((p) => p.role === 'worker').length;
  return `decided by ${remainingWorkers(s).length} of ${all} workers: ${why}`;
}

/** A meeting has settled for now: its digest is out, or it waits for the human. */
export function settles(e: MeetingEvent): boolean {
  return e.type === 'digest_ready' || e.type === 'escalated';
}

/** The consensus option a person means by its id ("o2") or its label, case-insensitively. */
export function findOption(s: MeetingState, wanted: string | undefined): ConsensusOption | undefined {
  const w = wanted?.toLowerCase();
  return w ? s.options.find((x) => x.id.toLowerCase() === w || x.label.toLowerCase() === w) : undefined;
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

/**
 * A meeting's row in `meeting/list`: the daemon keeps one per meeting, updated as events are
 * appended, and the extension reads the same row for a meeting it follows.
 */
export function summaryOf(s: MeetingState): MeetingSummary {
  const out: MeetingSummary = {
    meetingId: s.meetingId,
    topic: s.topic,
    mode: s.mode,
    status: s.status === 'new' ? 'running' : s.status,
    round: s.rounds[s.rounds.length - 1]?.round ?? 0,
    maxRounds: s.config.maxRounds,
    roundLimit: roundLimit(s),
    tokensSpoken: s.spokenTokens,
    tokenBudget: s.config.tokenBudget,
    createdAt: s.openedAt,
    lastSeq: s.lastSeq,
  };
  if (s.closed) out.terminatedBy = s.closed.reason;
  if (s.digest) out.digestReady = true;
  if (s.digest?.digest.noDecision) out.noDecision = true;
  if (s.decision) out.decision = s.decision.decision;
  return out;
}
