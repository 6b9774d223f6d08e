/**
 * What a meeting is expected to cost before it starts. Pure: the meeting is played on paper — the
 * log the engine would write, folded by the real reducer — with every prompt built by the real
 * prompt builders, and every reply a placeholder as long as its cap (what a model that uses its
 * whole allowance would send). So the estimate follows any change to the prompts, and is an upper
 * figure for models that answer shorter. No provider is called, nothing is written.
 */
import type {
  CallPurpose,
  ConsensusOption,
  EstimateLine,
  EventBody,
  MeetingConfig,
  MeetingEstimate,
  MeetingState,
  OptionVote,
  Participant,
  StartMeetingParams,
} from '../../../protocol/src';
import {
  DEFAULT_CONFIG,
  billOf,
  billedTokensOf,
  costOf,
  currentRound,
  evolve,
  initialState,
  workersOf,
} from '../../../protocol/src';
import type { ChatMessage } from '../providers/types';
import { countPromptTokens, countTokens, truncateToTokens } from '../providers/tokens';
import { BUDGET_WARNING_RATIO, FINAL_ROUND_ANNOUNCEMENT, planMaxTokens, replyCap } from './budget';
import { speakingOrder } from './order';
import {
  ballotPrompt,
  briefingPrompt,
  digestPrompt,
  judgePrompt,
  proposalPrompt,
  summaryPrompt,
  workerPrompt,
} from './prompts';

const FILLER_WORDS = 'the room weighs this option against its cost risk and evidence from the code and the team ';
const fillers = new Map<number, string>();

/** A placeholder reply of exactly `tokens` tokens (or fewer, for tiny caps). */
function filler(tokens: number): string {
  let t = fillers.get(tokens);
  if (t === undefined) {
    t = truncateToTokens(FILLER_WORDS.repeat(Math.ceil(tokens / 14) + 1), Math.max(0, tokens)).trim();
    fillers.set(tokens, t);
  }
  return t;
}

/**
 * Prompt tokens by message text: the full run and the budgeted run send the same prompts until the
 * budget bites, and the system prompts repeat every round, so each text is counted once.
 */
function promptTokens(messages: ChatMessage[], memo: Map<string, number>): number {
  let n = countPromptTokens([]);
  for (const m of messages) {
    let t = memo.get(m.content);
    if (t === undefined) memo.set(m.content, (t = countPromptTokens([m]) - countPromptTokens([])));
    n += t;
  }
  return n;
}

interface Part {
  calls: number;
  promptTokens: number;
  completionTokens: number;
  spokenTokens: number;
  costUsd: number;
}

const newPart = (): Part => ({ calls: 0, promptTokens: 0, completionTokens: 0, spokenTokens: 0, costUsd: 0 });

/** The meeting on paper: the state the engine would fold, and what each part of it cost. */
class PaperMeeting {
  state: MeetingState;
  private seq = 0;
  readonly opening = newPart();
  readonly rounds = new Map<number, Part>();
  readonly closing = newPart();
  /** Set once the budget would cut the meeting. */
  cut = false;

  constructor(
    params: StartMeetingParams,
    config: MeetingConfig,
    /** false: every round runs, whatever the budget says. */
    private readonly budgetApplies: boolean,
    private readonly memo: Map<string, number>,
  ) {
    this.state = evolve(
      initialState(),
      this.event({
        type: 'meeting_opened',
        topic: params.topic.trim(),
        mode: params.mode,
        config,
        participants: params.participants,
        ...(params.options ? { options: params.options } : {}),
      }),
    );
  }

  private event(body: EventBody) {
    return { ...body, meetingId: 'estimate', seq: ++this.seq, at: 0 };
  }

  emit(body: EventBody, part: Part): void {
    const before = this.state.spokenTokens;
    this.state = evolve(this.state, this.event(body));
    part.spokenTokens += this.state.spokenTokens - before;
  }

  private spent(): number {
    return this.state.config.budgetBasis === 'billed' ? billedTokensOf(this.state) : this.state.spokenTokens;
  }

  /** One call: its prompt counted as the tokenizer counts it, its reply as long as it may be. */
  call(p: Participant, purpose: CallPurpose, messages: ChatMessage[], cap: number, part: Part, share = 1): number {
    const budgeted = purpose !== 'summary' && purpose !== 'digest' && this.budgetApplies;
    const left = this.state.config.tokenBudget - this.spent();
    const completion = budgeted ? planMaxTokens(cap, left, share) : cap;
    const usage = {
      promptTokens: promptTokens(messages, this.memo),
      completionTokens: completion,
      source: 'estimate' as const,
    };
    part.calls++;
    part.promptTokens += usage.promptTokens;
    part.completionTokens += usage.completionTokens;
    const price = this.state.config.prices?.[p.model];
    if (price) part.costUsd += costOf({ ...usage, cachedTokens: 0 }, price);
    this.emit({ type: 'usage_recorded', participant: p.name, role: p.role, purpose, usage }, part);
    return completion;
  }

  /** The runner's budget rules after something was spoken: final round at 80%, cut at 100%. */
  checkBudget(part: Part): void {
    if (!this.budgetApplies || this.cut) return;
    const budget = this.state.config.tokenBudget;
    const spent = this.spent();
    if (spent >= budget) {
      this.cut = true;
      return;
    }
    if (spent >= budget * BUDGET_WARNING_RATIO && this.state.finalRound === undefined) {
      const finalRound = (currentRound(this.state)?.round ?? 0) + 1;
      this.emit({ type: 'budget_warning', spent, budget, finalRound }, part);
      const a = assistantOf(this.state);
      this.emit(
        {
          type: 'message_posted',
          messageId: `announcement-${a.name}-${finalRound}`,
          from: a.name,
          role: a.role,
          round: currentRound(this.state)?.round ?? 0,
          kind: 'announcement',
          text: FINAL_ROUND_ANNOUNCEMENT,
          tokens: countTokens(FINAL_ROUND_ANNOUNCEMENT),
        },
        part,
      );
    }
  }

  part(round: number): Part {
    let p = this.rounds.get(round);
    if (!p) this.rounds.set(round, (p = newPart()));
    return p;
  }
}

function assistantOf(s: MeetingState): Participant {
  const a = s.participants.find((p) => p.role === 'assistant');
  if (!a) throw new Error('the panel has no assistant');
  return a;
}

function startRound(m: PaperMeeting, round: number, final: boolean): string[] {
  const s = m.state;
  const speakers = speakingOrder(
    workersOf(s).map((w) => w.name),
    s.config.order,
    s.config.seed,
    round,
    currentRound(s)?.speakers.at(-1),
  );
  m.emit({ type: 'round_started', round, speakers, final }, m.part(round));
  return speakers;
}

function briefing(m: PaperMeeting): void {
  const a = assistantOf(m.state);
  const n = m.call(a, 'briefing', briefingPrompt(m.state, a), replyCap(m.state, 'briefing'), m.opening);
  const text = filler(n);
  m.emit(
    {
      type: 'message_posted',
      messageId: `briefing-${a.name}`,
      from: a.name,
      role: a.role,
      round: 0,
      kind: 'briefing',
      text,
      tokens: countTokens(text),
    },
    m.opening,
  );
  m.checkBudget(m.opening);
}

const STANCE = '\n[STANCE: NEUTRAL]';

function roundtableRound(m: PaperMeeting, round: number, final: boolean): void {
  const part = m.part(round);
  const speakers = startRound(m, round, final);
  const parallel = m.state.config.order === 'parallel';
  const cap = replyCap(m.state, 'turn');
  // Parallel turns are all asked from the state at the round's start; sequential ones see the earlier replies.
  const asked = parallel ? m.state : undefined;
  for (const name of speakers) {
    if (m.cut) return;
    const s = asked ?? m.state;
    const me = s.participants.find((p) => p.name === name);
    const r = currentRound(s);
    if (!me || !r) continue;
    const n = m.call(me, 'turn', workerPrompt(s, me, r), cap, part, parallel ? speakers.length : 1);
    const text = `${filler(Math.max(0, n - countTokens(STANCE)))}${STANCE}`;
    m.emit(
      {
        type: 'message_posted',
        messageId: `r${round}-${name}`,
        from: name,
        role: me.role,
        round,
        kind: 'contribution',
        text,
        tokens: countTokens(text),
      },
      part,
    );
    m.emit({ type: 'stance_recorded', round, participant: name, stance: 'NEUTRAL', passed: false }, part);
    m.checkBudget(part);
  }
  if (m.cut) return;
  const judge = m.state.participants.find((p) => p.role === 'judge');
  const r = currentRound(m.state);
  if (judge && r) {
    const n = m.call(judge, 'judge', judgePrompt(m.state, judge, r), replyCap(m.state, 'judge'), part);
    const text = filler(n);
    m.emit({ type: 'judge_feedback', round, text, corrections: [], tokens: countTokens(text) }, part);
    m.checkBudget(part);
    if (m.cut) return;
  }
  const a = assistantOf(m.state);
  const after = currentRound(m.state);
  if (!after) return;
  const n = m.call(a, 'summary', summaryPrompt(m.state, a, after), replyCap(m.state, 'summary'), part);
  const text = filler(n);
  m.emit({ type: 'summary_updated', round, text, tokens: countTokens(text) }, part);
  m.checkBudget(part);
}

/** Placeholder options: the ones given, or as many as the workers may propose. */
function consensusOptions(m: PaperMeeting): void {
  const s = m.state;
  let labels = s.requestedOptions ?? [];
  if (labels.length === 0) {
    const workers = workersOf(s);
    const cap = replyCap(s, 'turn');
    for (const w of workers) {
      const n = m.call(w, 'turn', proposalPrompt(m.state, w), cap, m.opening, workers.length);
      m.emit({ type: 'options_proposed', worker: w.name, options: [filler(Math.min(n, 20))] }, m.opening);
    }
    labels = Array.from({ length: s.config.maxOptions }, (_, i) => `Option ${i + 1}: ${filler(12)}`);
  }
  const options: ConsensusOption[] = labels.map((label, i) => ({ id: `O${i + 1}`, label }));
  m.emit({ type: 'options_set', options, source: s.requestedOptions?.length ? 'user' : 'proposed' }, m.opening);
}

function consensusRound(m: PaperMeeting, round: number, final: boolean): void {
  const part = m.part(round);
  const speakers = startRound(m, round, final);
  const asked = m.state;
  const cap = replyCap(asked, 'ballot');
  const perOption = Math.max(1, Math.floor(cap / Math.max(1, asked.options.length)) - 25);
  for (const name of speakers) {
    if (m.cut) return;
    const me = asked.participants.find((p) => p.name === name);
    const r = currentRound(asked);
    if (!me || !r) continue;
    const n = m.call(me, 'turn', ballotPrompt(asked, me, r), cap, part, speakers.length);
    const votes: OptionVote[] = asked.options.map((o) => ({
      option: o.id,
      vote: 'abstain',
      confidence: 0.5,
      rationale: filler(Math.min(perOption, n)),
      evidence: [],
    }));
    m.emit({ type: 'ballot_recorded', round, worker: name, votes, valid: true, retried: false, tokens: n }, part);
    m.checkBudget(part);
  }
}

function digest(m: PaperMeeting): void {
  const a = assistantOf(m.state);
  m.call(a, 'digest', digestPrompt(m.state, a), replyCap(m.state, 'digest'), m.closing);
}

function play(
  params: StartMeetingParams,
  config: MeetingConfig,
  budgetApplies: boolean,
  memo: Map<string, number>,
): PaperMeeting {
  const m = new PaperMeeting(params, config, budgetApplies, memo);
  briefing(m);
  const consensus = params.mode === 'consensus';
  if (consensus && !m.cut) consensusOptions(m);
  const last = consensus ? 1 + config.challengeRounds : config.maxRounds;
  for (let round = 1; round <= last && !m.cut; round++) {
    const finalRound = m.state.finalRound;
    const final = round >= last || finalRound === round;
    if (consensus) consensusRound(m, round, final);
    else roundtableRound(m, round, final);
    if (finalRound !== undefined && round >= finalRound) break;
    if (m.state.finalRound !== undefined && round >= m.state.finalRound) break;
  }
  digest(m);
  return m;
}

function lineOf(parts: Part[], priced: boolean): EstimateLine {
  const sum = parts.reduce(
    (a, p) => ({
      calls: a.calls + p.calls,
      promptTokens: a.promptTokens + p.promptTokens,
      completionTokens: a.completionTokens + p.completionTokens,
      spokenTokens: a.spokenTokens + p.spokenTokens,
      costUsd: a.costUsd + p.costUsd,
    }),
    newPart(),
  );
  return {
    calls: sum.calls,
    promptTokens: sum.promptTokens,
    completionTokens: sum.completionTokens,
    totalTokens: sum.promptTokens + sum.completionTokens,
    spokenTokens: sum.spokenTokens,
    ...(priced ? { costUsd: sum.costUsd } : {}),
  };
}

function totalOf(m: PaperMeeting, priced: boolean): EstimateLine & { rounds: number } {
  return { ...lineOf([m.opening, ...m.rounds.values(), m.closing], priced), rounds: m.state.rounds.length };
}

/**
 * Expected calls and billed tokens of a meeting: per round if every round runs, the total, and
 * where the budget would stop it first. Money where the meeting's config has prices.
 */
export function estimateMeeting(params: StartMeetingParams): MeetingEstimate {
  const config: MeetingConfig = { ...DEFAULT_CONFIG, ...params.config };
  const memo = new Map<string, number>();
  const full = play(params, config, false, memo);
  const withBudget = play(params, config, true, memo);
  const bill = billOf(full.state);
  const priced = Object.keys(config.prices ?? {}).length > 0;
  const all = totalOf(full, priced);
  const cut = totalOf(withBudget, priced);
  const budgetStops = withBudget.cut || cut.rounds < all.rounds;
  const lm = bill.requestsByProvider['vscode-lm'];
  return {
    mode: params.mode,
    budget: config.tokenBudget,
    budgetBasis: config.budgetBasis ?? 'spoken',
    opening: lineOf([full.opening], priced),
    rounds: [...full.rounds.entries()].map(([round, p]) => ({ round, ...lineOf([p], priced) })),
    closing: lineOf([full.closing], priced),
    allRounds: all,
    ...(budgetStops ? { budgetCut: cut } : {}),
    ...(lm ? { vscodeRequests: lm } : {}),
    unpricedModels: priced ? bill.unpricedModels : [],
  };
}
