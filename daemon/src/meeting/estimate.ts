/**
 * What a meeting is expected to cost before it starts. Pure: the meeting is played on paper — the
 * log the engine would write, folded by the real reducer — with every prompt built by the real
 * prompt builders, and every reply a placeholder as long as its cap (what a model that uses its
 * whole allowance would send). So the estimate follows any change to the prompts, and is an upper
 * figure for models that answer shorter. The context the start would attach is read the way the
 * start reads it and shown in the same prompts, so every call that carries it counts it. No
 * provider is called, nothing is written.
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
import { DEFAULT_CONFIG, billOf, costOf, currentRound, evolve, initialState, workersOf } from '../../../protocol/src';
import { messageIdOf } from '../../../protocol/src/messageIds';
import type { ChatMessage } from '../providers/types';
import { countPromptTokens, countTokens, truncateToTokens } from '../providers/tokens';
import { attachContext } from '../context/attach';
import { contextOptions } from '../context/render';
import { BUDGET_WARNING_RATIO, replyCap } from './budget';
import { speakingOrder } from './order';
import {
  ballotPrompt,
  briefingPrompt,
  digestPrompt,
  compactionDue,
  countTokensByParagraph,
  judgePrompt,
  proposalPrompt,
  summaryPrompt,
  workerPrompt,
} from './prompts';

/** What the start logs as the meeting's context (see attachContext). */
type ContextEvent = Extract<EventBody, { type: 'context_attached' }>;

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
    // A transcript is the last one plus a round: counted by paragraph, only the new round is tokenized.
    if (t === undefined) {
      t = countPromptTokens([{ ...m, content: '' }]) - countPromptTokens([]) + countTokensByParagraph(m.content);
      memo.set(m.content, t);
    }
    n += t;
  }
  return n;
}

/** One call of the meeting on paper. `round` 0 is the opening, -1 the closing digest. */
interface CallRecord {
  round: number;
  promptTokens: number;
  /** What a prefix cache would serve of the prompt (see `cachedOf`). */
  cachedTokens: number;
  completionTokens: number;
  /** What the reply added to the room's spoken tokens. */
  spokenTokens: number;
  costUsd?: number;
  vscodeLm: boolean;
}

/** OpenAI's prompt caching: prompts of 1,024 tokens or more, hits counted in 128-token blocks. */
const CACHE_MIN_TOKENS = 1_024;
const CACHE_BLOCK_TOKENS = 128;
/** Earlier prompts to the same model a new one is compared with (the best match is nearly always recent). */
const CACHE_LOOKBACK = 8;

/** The prompt text a prefix cache sees: the messages in order, system first. */
function serialized(messages: ChatMessage[]): string {
  return messages.map((m) => `<${m.role}>\n${m.content}\n`).join('');
}

/**
 * Tokens of `text` a prefix cache would serve, given the earlier prompts to the same model: the
 * longest common prefix, as a share of the prompt's tokens, by OpenAI's minimum and blocks.
 */
function cachedOf(text: string, promptTokens: number, earlier: string[]): number {
  let best = 0;
  for (const before of earlier) {
    const n = Math.min(before.length, text.length);
    if (n <= best) continue;
    // Block by block with native comparisons (prompts share tens of thousands of characters), then
    // character by character inside the first block that differs.
    let i = 0;
    while (i + 1_024 <= n && text.substring(i, i + 1_024) === before.substring(i, i + 1_024)) i += 1_024;
    while (i < n && text.charCodeAt(i) === before.charCodeAt(i)) i++;
    best = Math.max(best, i);
  }
  const common = text.length === 0 ? 0 : Math.floor((promptTokens * best) / text.length);
  return common < CACHE_MIN_TOKENS ? 0 : Math.floor(common / CACHE_BLOCK_TOKENS) * CACHE_BLOCK_TOKENS;
}

/** The meeting on paper: the state the engine would fold, and every call it would make. */
class PaperMeeting {
  state: MeetingState;
  private seq = 0;
  readonly calls: CallRecord[] = [];
  /** The round the calls being made count for (0: the opening, -1: the closing). */
  label = 0;
  /** The latest prompts sent to each model, for the prefix cache. */
  private readonly sent = new Map<string, string[]>();

  constructor(
    params: StartMeetingParams,
    config: MeetingConfig,
    private readonly memo: Map<string, number>,
    context: ContextEvent | undefined,
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
    // Logged right after meeting_opened, as the engine does: the same seq, so the same envelope.
    if (context) this.state = evolve(this.state, this.event(context));
  }

  private event(body: EventBody) {
    return { ...body, meetingId: 'estimate', seq: ++this.seq, at: 0 };
  }

  /** Folds an event; what it speaks is put on the call that produced it. */
  emit(body: EventBody): void {
    const before = this.state.spokenTokens;
    this.state = evolve(this.state, this.event(body));
    const last = this.calls.at(-1);
    if (last) last.spokenTokens += this.state.spokenTokens - before;
  }

  /** One call: its prompt counted as the tokenizer counts it, its reply as long as its cap. */
  call(p: Participant, purpose: CallPurpose, messages: ChatMessage[], cap: number): number {
    const usage = {
      promptTokens: promptTokens(messages, this.memo),
      completionTokens: cap,
      source: 'estimate' as const,
    };
    const price = this.state.config.prices?.[p.model];
    const key = `${p.provider}\u0000${p.model}`;
    const text = serialized(messages);
    const earlier = this.sent.get(key) ?? [];
    const cachedTokens = cachedOf(text, usage.promptTokens, earlier);
    this.sent.set(key, [...earlier.slice(1 - CACHE_LOOKBACK), text]);
    this.calls.push({
      round: this.label,
      promptTokens: usage.promptTokens,
      cachedTokens,
      completionTokens: cap,
      spokenTokens: 0,
      ...(price ? { costUsd: costOf({ ...usage, cachedTokens }, price) } : {}),
      vscodeLm: p.provider === 'vscode-lm',
    });
    this.emit({ type: 'usage_recorded', participant: p.name, role: p.role, purpose, usage });
    return cap;
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
  m.emit({ type: 'round_started', round, speakers, final });
  return speakers;
}

function briefing(m: PaperMeeting): void {
  const a = assistantOf(m.state);
  const text = filler(
    m.call(a, 'briefing', briefingPrompt(m.state, a, contextOptions(m.state)), replyCap(m.state, 'briefing')),
  );
  m.emit({
    type: 'message_posted',
    messageId: messageIdOf('briefing', 0, a.name),
    from: a.name,
    role: a.role,
    round: 0,
    kind: 'briefing',
    text,
    tokens: countTokens(text),
  });
}

const STANCE = '\n[STANCE: NEUTRAL]';

function roundtableRound(m: PaperMeeting, round: number, final: boolean): void {
  const speakers = startRound(m, round, final);
  const parallel = m.state.config.order === 'parallel';
  const cap = replyCap(m.state, 'turn');
  // Parallel turns are all asked from the state at the round's start; sequential ones see the earlier replies.
  const asked = parallel ? m.state : undefined;
  for (const name of speakers) {
    const s = asked ?? m.state;
    const me = s.participants.find((p) => p.name === name);
    const r = currentRound(s);
    if (!me || !r) continue;
    const n = m.call(me, 'turn', workerPrompt(s, me, r, contextOptions(s)), cap);
    const text = `${filler(Math.max(0, n - countTokens(STANCE)))}${STANCE}`;
    m.emit({
      type: 'message_posted',
      messageId: messageIdOf('turn', round, name),
      from: name,
      role: me.role,
      round,
      kind: 'contribution',
      text,
      tokens: countTokens(text),
    });
    m.emit({ type: 'stance_recorded', round, participant: name, stance: 'NEUTRAL', passed: false });
  }
  const judge = m.state.participants.find((p) => p.role === 'judge');
  const r = currentRound(m.state);
  if (judge && r) {
    const text = filler(
      m.call(judge, 'judge', judgePrompt(m.state, judge, r, contextOptions(m.state)), replyCap(m.state, 'judge')),
    );
    m.emit({ type: 'judge_feedback', round, text, corrections: [], tokens: countTokens(text) });
  }
  // A compaction (the planner's rule): only when the next round's transcript passes the threshold,
  // every round before this one is folded into the summary. A round that ends the meeting folds nothing.
  const a = assistantOf(m.state);
  const before = m.state.rounds.find((x) => x.round === round - 1);
  const now = currentRound(m.state);
  if (!before || !now || final || !compactionDue(m.state, now)) return;
  const text = filler(
    m.call(a, 'summary', summaryPrompt(m.state, a, before, contextOptions(m.state)), replyCap(m.state, 'summary')),
  );
  m.emit({ type: 'summary_updated', round: before.round, text, tokens: countTokens(text) });
}

/** Placeholder options: the ones given, or as many as the workers may propose. */
function consensusOptions(m: PaperMeeting): void {
  const s = m.state;
  let labels = s.requestedOptions ?? [];
  if (labels.length === 0) {
    const cap = replyCap(s, 'turn');
    for (const w of workersOf(s)) {
      const n = m.call(w, 'turn', proposalPrompt(m.state, w, contextOptions(m.state)), cap);
      m.emit({ type: 'options_proposed', worker: w.name, options: [filler(Math.min(n, 20))] });
    }
    labels = Array.from({ length: s.config.maxOptions }, (_, i) => `Option ${i + 1}: ${filler(12)}`);
  }
  const options: ConsensusOption[] = labels.map((label, i) => ({ id: `O${i + 1}`, label }));
  m.emit({ type: 'options_set', options, source: s.requestedOptions?.length ? 'user' : 'proposed' });
}

function consensusRound(m: PaperMeeting, round: number, final: boolean): void {
  const speakers = startRound(m, round, final);
  const asked = m.state;
  const cap = replyCap(asked, 'ballot');
  const perOption = Math.max(1, Math.floor(cap / Math.max(1, asked.options.length)) - 25);
  for (const name of speakers) {
    const me = asked.participants.find((p) => p.name === name);
    const r = currentRound(asked);
    if (!me || !r) continue;
    const n = m.call(me, 'turn', ballotPrompt(asked, me, r, contextOptions(asked)), cap);
    const votes: OptionVote[] = asked.options.map((o) => ({
      option: o.id,
      vote: 'abstain',
      confidence: 0.5,
      rationale: filler(Math.min(perOption, n)),
      evidence: [],
    }));
    m.emit({ type: 'ballot_recorded', round, worker: name, votes, valid: true, retried: false, tokens: n });
  }
}

/**
 * From this round on, every round looks the same on paper (each sees a previous round, summary
 * and judge at their caps): later rounds are copied rather than built again, so an estimate of a
 * 100-round meeting costs what a 4-round one does. The last round is built (it is the final one).
 */
const STEADY_ROUND = 3;

/** Plays the whole meeting, every round run, whatever the budget. */
function play(params: StartMeetingParams, config: MeetingConfig, context: ContextEvent | undefined): PaperMeeting {
  const m = new PaperMeeting(params, config, new Map(), context);
  briefing(m);
  const consensus = params.mode === 'consensus';
  if (consensus) consensusOptions(m);
  const last = consensus ? 1 + config.challengeRounds : config.maxRounds;
  const playRound = (n: number, label: number) => {
    m.label = label;
    if (consensus) consensusRound(m, n, label === last);
    else roundtableRound(m, n, label === last);
  };
  // Roundtable prompts grow by appending until a compaction: every round is built.
  const copying = consensus && last > STEADY_ROUND + 1;
  for (let round = 1; round <= (copying ? STEADY_ROUND : last); round++) playRound(round, round);
  if (copying) {
    const steady = m.calls.filter((c) => c.round === STEADY_ROUND);
    for (let round = STEADY_ROUND + 1; round < last; round++) m.calls.push(...steady.map((c) => ({ ...c, round })));
    // Built as the round after the steady one (its prompts differ from round `last`'s only in the
    // round's number), counted as the last.
    playRound(STEADY_ROUND + 1, last);
  }
  m.label = -1;
  const a = assistantOf(m.state);
  m.call(a, 'digest', digestPrompt(m.state, a, contextOptions(m.state)), replyCap(m.state, 'digest'));
  return m;
}

/**
 * Where the budget would stop the meeting, by the runner's rules applied after each call: the
 * round after the one that reaches 80% is the last, reaching 100% cuts at once. `undefined` when
 * every round fits. (Replies near the end are planned shorter than their cap: an upper figure.)
 */
function budgetStop(calls: CallRecord[], config: MeetingConfig): { calls: CallRecord[]; rounds: number } | undefined {
  const budget = config.tokenBudget;
  const billed = config.budgetBasis === 'billed';
  let spent = 0;
  let finalRound: number | undefined;
  const out: CallRecord[] = [];
  for (const c of calls) {
    if (c.round < 0) break;
    if (finalRound !== undefined && c.round > finalRound) return { calls: out, rounds: finalRound };
    out.push(c);
    spent += billed ? c.promptTokens + c.completionTokens : c.spokenTokens;
    if (spent >= budget) return { calls: out, rounds: c.round };
    if (spent >= budget * BUDGET_WARNING_RATIO && finalRound === undefined) finalRound = c.round + 1;
  }
  return undefined;
}

function lineOf(calls: CallRecord[], priced: boolean): EstimateLine {
  const l = { calls: 0, promptTokens: 0, completionTokens: 0, totalTokens: 0, spokenTokens: 0, costUsd: 0 };
  let cachedTokens = 0;
  for (const c of calls) {
    l.calls++;
    l.promptTokens += c.promptTokens;
    cachedTokens += c.cachedTokens;
    l.completionTokens += c.completionTokens;
    l.totalTokens += c.promptTokens + c.completionTokens;
    l.spokenTokens += c.spokenTokens;
    l.costUsd += c.costUsd ?? 0;
  }
  const { costUsd, ...counted } = l;
  const tokens = cachedTokens > 0 ? { ...counted, cachedTokens } : counted;
  return priced ? { ...tokens, costUsd } : tokens;
}

/**
 * Expected calls and billed tokens of a meeting: per round if every round runs, the total, and
 * where the budget would stop it first. Money where the meeting's config has prices. `context`:
 * what the start would attach (see `estimateStart`); pure, it reads nothing itself.
 */
export function estimateMeeting(params: StartMeetingParams, context?: ContextEvent): MeetingEstimate {
  const config: MeetingConfig = { ...DEFAULT_CONFIG, ...params.config };
  const m = play(params, config, context);
  const priced = Object.keys(config.prices ?? {}).length > 0;
  const closing = m.calls.filter((c) => c.round < 0);
  const roundNumbers = [...new Set(m.calls.map((c) => c.round).filter((r) => r > 0))];
  const stop = budgetStop(m.calls, config);
  const lm = m.calls.filter((c) => c.vscodeLm).length;
  return {
    mode: params.mode,
    budget: config.tokenBudget,
    budgetBasis: config.budgetBasis ?? 'spoken',
    opening: lineOf(
      m.calls.filter((c) => c.round === 0),
      priced,
    ),
    rounds: roundNumbers.map((round) => ({
      round,
      ...lineOf(
        m.calls.filter((c) => c.round === round),
        priced,
      ),
    })),
    closing: lineOf(closing, priced),
    allRounds: { ...lineOf(m.calls, priced), rounds: roundNumbers.length },
    ...(stop ? { budgetCut: { ...lineOf([...stop.calls, ...closing], priced), rounds: stop.rounds } } : {}),
    ...(lm ? { vscodeRequests: lm } : {}),
    unpricedModels: priced ? billOf(m.state).unpricedModels : [],
  };
}

/**
 * The estimate of a meeting about to start: its context read exactly as the start will read it
 * (same folder, same refusals, same budget; reads only), then the meeting played on paper.
 */
export async function estimateStart(params: StartMeetingParams): Promise<MeetingEstimate> {
  const context = await attachContext(params, { ...DEFAULT_CONFIG, ...params.config });
  return estimateMeeting(params, context);
}
