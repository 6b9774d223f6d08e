/**
 * The meeting log. A meeting is nothing but an ordered list of these events; every view of a
 * meeting (engine state, live room, minutes, digest) is a fold over them. Shared by the daemon,
 * the extension and the webview so all three render the same thing.
 */

/** How a meeting is run. */
export type MeetingMode = 'roundtable' | 'consensus';

/** The part a participant plays in the room. */
export type Role = 'assistant' | 'judge' | 'worker';

/** Order in which workers are asked within a round. */
export type SpeakingOrder = 'parallel' | 'sequential' | 'shuffle';

/** A stance as parsed from the speaker's own reply (never inferred by another model call). */
export type Stance = 'AGREE' | 'DISAGREE' | 'NEUTRAL' | 'UNKNOWN';

/** What the room shows for one worker in one round: its stance, or why it has none. */
export type StanceCell = Stance | 'PASS' | 'TIMEOUT';

/** Consensus result of a round. */
export type ConsensusLevel = 'FULL' | 'MAJORITY' | 'NONE';

/** Why a meeting ended. */
export type TerminationReason =
  | 'all_passed'
  | 'consensus_full'
  | 'consensus_majority'
  | 'judge_converged'
  | 'max_rounds'
  | 'budget_exhausted'
  | 'time_limit'
  | 'cut'
  | 'error'
  /** Consensus mode: the votes settled the question without the human. */
  | 'verdict_reached'
  /** Consensus mode: the human picked an option after an escalation. */
  | 'human_decided'
  /** Consensus mode: the human deferred the decision after an escalation. */
  | 'deferred';

export const TERMINATION_REASONS: readonly TerminationReason[] = [
  'verdict_reached',
  'human_decided',
  'deferred',
  'all_passed',
  'consensus_full',
  'consensus_majority',
  'judge_converged',
  'max_rounds',
  'budget_exhausted',
  'time_limit',
  'cut',
  'error',
];

/**
 * Which backend answers for a participant. `attached` seats are taken by an agent that connects
 * itself (over the daemon's socket or MCP) and speaks through the agent tools.
 */
export type ProviderKind = 'scripted' | 'openai' | 'vscode-lm' | 'attached';

/** One seat at the table. */
export interface Participant {
  /** Unique, human-readable name used in the room ("ada"). Letters, digits, `-` and `_`. */
  name: string;
  /** Role in the meeting. */
  role: Role;
  /** Provider that answers for this participant. */
  provider: ProviderKind;
  /** Model identifier passed to the provider ("gpt-4o-mini", "llama3.1", "scripted"). */
  model: string;
  /** Persona / system prompt that shapes how the participant argues. */
  persona?: string;
}

/** Limits and policies of a meeting, fixed when it opens. */
export interface MeetingConfig {
  /** Maximum number of discussion rounds (default 10). */
  maxRounds: number;
  /** Token budget for everything spoken in the room (default 15,000). */
  tokenBudget: number;
  /** Order in which workers speak within a round (default parallel). */
  order: SpeakingOrder;
  /** Per-agent turn timeout in milliseconds (default 60,000). */
  turnTimeoutMs: number;
  /** Overall meeting time limit in milliseconds (default 600,000). */
  timeLimitMs: number;
  /** Upper bound on the rolling summary's length in tokens (default 500). */
  summaryMaxTokens: number;
  /** Upper bound on a single worker reply in tokens (default 600). */
  replyMaxTokens: number;
  /** Seed for the shuffle order, so a resumed meeting keeps the same order. */
  seed: number;
  /** Consensus mode: weighted agreement needed to decide without the human (default 0.8). */
  consensusThreshold: number;
  /** Consensus mode: most options kept from the proposal round (default 5). */
  maxOptions: number;
  /** Consensus mode: challenge rounds after the first vote (default 2). */
  challengeRounds: number;
}

export const DEFAULT_CONFIG: MeetingConfig = {
  maxRounds: 10,
  tokenBudget: 15_000,
  order: 'parallel',
  turnTimeoutMs: 60_000,
  timeLimitMs: 600_000,
  summaryMaxTokens: 500,
  replyMaxTokens: 600,
  seed: 1,
  consensusThreshold: 0.8,
  maxOptions: 5,
  challengeRounds: 2,
};

/** What kind of post a message is. */
export type MessageKind = 'briefing' | 'contribution' | 'announcement' | 'closing';

/** Token usage of one model call. */
export interface Usage {
  promptTokens: number;
  completionTokens: number;
  /** `provider` when the server reported usage, `estimate` when counted locally with a tokenizer. */
  source: 'provider' | 'estimate';
}

/** Why a model call was made (used for accounting and by the scripted provider). */
export type CallPurpose = 'briefing' | 'turn' | 'judge' | 'summary' | 'digest';

/** The closing digest. Computed fields are computed; narrative fields come from the Assistant. */
export interface Digest {
  topic: string;
  /** Computed consensus level of the last evaluated round. */
  consensus: ConsensusLevel;
  /** One-line statement of where the room landed (Assistant). */
  consensusStatement: string;
  /** Who disagreed or held back, and why. Never empty. */
  dissent: string;
  /** Who contributed what ("ada proposed X, grace countered with Y"). */
  contributors: string;
  /** 0.0–1.0, share of workers whose final stance is AGREE. */
  confidence: number;
  /** Tokens spoken in the room. */
  tokensUsed: number;
  /** The meeting's token budget. */
  tokenBudget: number;
  /** Why the meeting ended. */
  terminatedBy: TerminationReason;
}

/** One option of a consensus meeting. */
export interface ConsensusOption {
  /** Stable short id the workers vote with ("O1"). */
  id: string;
  label: string;
}

export type VoteKind = 'accept' | 'reject' | 'abstain';

export interface Evidence {
  file: string;
  section?: string;
  type?: string;
  /** Checked against the workspace when the vote was recorded. */
  status: 'exists' | 'missing' | 'outside_workspace' | 'unchecked';
}

export interface OptionVote {
  option: string;
  vote: VoteKind;
  /** 0.0–1.0 */
  confidence: number;
  rationale: string;
  evidence: Evidence[];
}

export type Verdict = 'PROVEN' | 'REFUTED' | 'CONTESTED' | 'INSUFFICIENT_EVIDENCE';

export interface OptionResult {
  option: string;
  verdict: Verdict;
  accept: number;
  reject: number;
  abstain: number;
  /** Calibrated confidence-weighted share of accepting weight among non-abstaining votes, 0–1. */
  weightedAccept: number;
  weightedReject: number;
  /** Cited files that exist, on each side. */
  evidenceFor: number;
  evidenceAgainst: number;
}

export type ConflictSeverity = 'critical' | 'high' | 'medium' | 'low';
export type ConflictType = 'contradiction' | 'partial-overlap' | 'scope-difference' | 'priority-difference';

export interface Conflict {
  conflictId: string;
  severity: ConflictSeverity;
  conflictType: ConflictType;
  positions: { worker: string; option: string; vote: VoteKind; confidence: number }[];
  resolution: string;
}

/** Decision a human records on a digest. */
export type DecisionKind = 'accepted' | 'rejected' | 'another_round';

/**
 * How the daemon reaches the models of a meeting. Logged with the meeting so it can resume after a
 * restart; an API key is never part of it.
 */
export interface ProviderConfig {
  /** Base URL of the OpenAI-compatible server for `openai` participants. */
  baseURL?: string;
  /** Script for `scripted` participants (see the README); the demo script when absent. */
  script?: unknown;
}

interface EventBodies {
  meeting_opened: {
    topic: string;
    mode: MeetingMode;
    config: MeetingConfig;
    participants: Participant[];
    providers?: ProviderConfig;
    /** Options of a consensus meeting. */
    options?: string[];
    /** Folder that cited evidence is checked against (consensus mode). */
    workspace?: string;
  };
  participant_joined: { participant: Participant };
  round_started: {
    round: number;
    /** Workers asked this round, in speaking order. */
    speakers: string[];
    /** True when this is announced as the last round. */
    final: boolean;
  };
  message_posted: {
    messageId: string;
    from: string;
    role: Role | 'human';
    /** 0 for the briefing, otherwise the round the message belongs to. */
    round: number;
    kind: MessageKind;
    text: string;
    /** Tokens of `text`, counted into the room's budget. */
    tokens: number;
  };
  stance_recorded: {
    round: number;
    participant: string;
    stance: StanceCell;
    /** True when the worker said it has nothing more to add and sits out the remaining rounds. */
    passed: boolean;
  };
  turn_failed: {
    round: number;
    participant: string;
    reason: 'timeout' | 'error';
    detail: string;
  };
  judge_feedback: {
    round: number;
    /** The judge's text; empty when the round was clean. */
    text: string;
    /** Corrections addressed to named workers. */
    corrections: { worker: string; text: string }[];
    /** Set when the judge posted `CONVERGED: <reason>`. */
    converged?: string;
    tokens: number;
  };
  summary_updated: { round: number; text: string; tokens: number };
  consensus_evaluated: {
    round: number;
    level: ConsensusLevel;
    agree: number;
    disagree: number;
    neutral: number;
    voters: number;
  };
  budget_warning: { spent: number; budget: number; finalRound: number };
  usage_recorded: {
    participant: string;
    role: Role;
    purpose: CallPurpose;
    usage: Usage;
  };
  human_posted: { messageId: string; from: string; text: string; tokens: number; round: number };
  meeting_interrupted: { detail: string };
  /**
   * A human (or a limit: budget, time) asked the meeting to end. Logged before it is acknowledged,
   * so a close survives a restart. `graceful` ends it once the round in progress is complete;
   * otherwise in-flight calls are aborted and the meeting closes at once, with this reason.
   */
  close_requested: { reason: TerminationReason; detail?: string; graceful: boolean };
  meeting_closed: { reason: TerminationReason; detail?: string };
  digest_ready: { digest: Digest; text: string };
  decision_recorded: { decision: DecisionKind; instruction?: string; digestText?: string };
  /** Consensus mode: options proposed by one worker in the proposal round. */
  options_proposed: { worker: string; options: string[] };
  /** Consensus mode: the options put to the vote. */
  options_set: { options: ConsensusOption[]; source: 'user' | 'proposed' };
  /** Consensus mode: one worker's ballot for a round. An invalid ballot is recorded as all-abstain with the reason. */
  ballot_recorded: {
    round: number;
    worker: string;
    votes: OptionVote[];
    valid: boolean;
    /** Set when the worker was asked again after an invalid first answer. */
    retried: boolean;
    invalidReason?: string;
    /** Tokens of the ballot as written, counted into the room's budget. */
    tokens: number;
  };
  /** Consensus mode: the verdicts after a round. */
  verdict_computed: {
    round: number;
    results: OptionResult[];
    /** The option the votes decide for, if any. */
    decision?: string;
    /** Weighted agreement on the decision (or on the best option), 0–1. */
    actualConsensus: number;
    consensusThreshold: number;
    conflicts: Conflict[];
    /** Why the human must decide; empty when the votes settle it. */
    reasons: string[];
    /** True when no further challenge round will be held. */
    final: boolean;
  };
  /** Consensus mode: the meeting pauses for the human. */
  escalated: { reasons: string[] };
  /** Consensus mode: the human's answer to an escalation. */
  human_resolved: { action: 'pick' | 'another_round' | 'defer'; option?: string; instruction?: string };
}

export type MeetingEventType = keyof EventBodies;

export const MEETING_EVENT_TYPES: readonly MeetingEventType[] = [
  'meeting_opened',
  'participant_joined',
  'round_started',
  'message_posted',
  'stance_recorded',
  'turn_failed',
  'judge_feedback',
  'summary_updated',
  'consensus_evaluated',
  'budget_warning',
  'usage_recorded',
  'human_posted',
  'meeting_interrupted',
  'close_requested',
  'meeting_closed',
  'digest_ready',
  'decision_recorded',
  'options_proposed',
  'options_set',
  'ballot_recorded',
  'verdict_computed',
  'escalated',
  'human_resolved',
];

/** An event body before the store has given it a place in the log. */
export type EventBody = { [K in MeetingEventType]: { type: K } & EventBodies[K] }[MeetingEventType];

/** Body of one event type. */
export type EventOf<K extends MeetingEventType> = Extract<MeetingEvent, { type: K }>;

/** An event in the log. `seq` is per meeting, starts at 1 and has no gaps. */
export type MeetingEvent = EventBody & {
  meetingId: string;
  seq: number;
  /** Milliseconds since the epoch when the event was appended. */
  at: number;
};

/**
 * Live-only streaming of a message being written. Not part of the log (a 500-token reply would
 * otherwise be hundreds of events): the `message_posted` event that follows carries the full text.
 */
export interface MessageDelta {
  meetingId: string;
  messageId: string;
  from: string;
  round: number;
  /** Text appended since the previous delta. */
  text: string;
}
