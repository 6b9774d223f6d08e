/**
 * What each model is shown.
 *
 * Roundtable prompts grow by appending, and every participant's prompt starts with the same
 * prefix, so a server's prefix cache serves most of each call (OpenAI caches prompts of 1,024
 * tokens or more, Anthropic bills cache reads at 10%, vLLM/llama.cpp/Ollama skip their prefill):
 *
 *   system  the room's rules, the same for every seat (no name, no persona, nothing per round)
 *   user    the transcript: topic, attached context, briefing, then the rounds in order — each
 *           worker's post, the judge's notes, the human's posts — every post in its envelope.
 *           Once a compaction has run, the rolling summary stands in for the rounds it covers.
 *   user    last: who this seat is (name, role, persona) and what to do now (the round line).
 *
 * So round r+1's transcript starts with round r's byte for byte, for every seat, until a
 * compaction replaces the oldest rounds with the summary (see `compactionDue`). Nothing
 * round-dependent may appear in a round's block that is not final once the round is over.
 */
import type { MeetingState, Participant, PostedMessage, RoundState, ChatMessage } from '@roundtable/protocol';
import { finalStances } from '@roundtable/protocol';
import { STANCE_CHOICES, stanceMarker } from '@roundtable/protocol/stance';
import { countTokens } from '../providers/tokens';
import { wrapPost } from '../providers/envelope';
import { JUDGE_ANTI_CONFORMITY, WORKER_ANTI_CONFORMITY } from './antiConformity';
import { ballotOf } from './consensusPrompts';
import { FINAL_ROUND_ANNOUNCEMENT } from './budget';
import { EVIDENCE_RULE, assistantName, capPost, personaOf, stableHead, wrap } from './promptParts';
import type { PromptOptions } from '../context/render';

/**
 * When what the rounds add to the transcript the next round would be shown passes this many tokens
 * (the meeting's `compactAtTokens` when set), the rounds before the last are folded into the
 * rolling summary.
 */
export const DEFAULT_COMPACT_AT_TOKENS = 6_000;

/** Share of the smallest known context window a transcript may fill before it is compacted. */
export const COMPACT_AT_WINDOW_SHARE = 0.5;

/**
 * The compaction threshold for a panel whose models' context windows are `windows` (undefined
 * where unknown): the default, lowered to half the smallest known window (the next round, the
 * seat message and the reply need the rest). Undefined when no window is known: the default applies.
 */
export function compactThresholdFor(windows: readonly (number | undefined)[]): number | undefined {
  const known = windows.filter((w): w is number => typeof w === 'number' && w > 0);
  if (known.length === 0) return undefined;
  return Math.max(100, Math.min(DEFAULT_COMPACT_AT_TOKENS, Math.floor(Math.min(...known) * COMPACT_AT_WINDOW_SHARE)));
}

/**
 * The rolling summary is model text like any post (an assistant can be talked into anything):
 * it goes in its own envelope, never between tags a summary could close itself.
 */
function summaryBlock(s: MeetingState, label: string): string {
  if (!s.summary) return `${label}\n(none yet)`;
  return `${label}\n${wrapPost({ from: assistantName(s), kind: 'system', seq: s.summarySeq, text: s.summary })}`;
}

function judgeName(s: MeetingState): string {
  return s.participants.find((p) => p.role === 'judge')?.name ?? 'judge';
}

/**
 * The judge's notes as the room's next prompts show them: only a review that asks something of a
 * worker (a correction) or ends the meeting (CONVERGED). A review with neither is a clean round
 * however many words it took, and the seed's judge "stays silent when the round is clean": its
 * text is in the log and the minutes, not in every later prompt of the meeting.
 */
function judgeText(s: MeetingState, r: RoundState): string {
  const j = r.judge;
  if (!j || !judgeSpeaks(r)) return '';
  return wrapPost({
    from: judgeName(s),
    kind: 'peer',
    seq: j.seq,
    text: capPost(j.text),
  });
}

/** Whether the judge's review of a round is in later prompts: a correction or a CONVERGED, never a clean round's review. */
function judgeSpeaks(r: RoundState): boolean {
  const j = r.judge;
  return !!j?.text && (j.corrections.length > 0 || j.converged !== undefined);
}

function contributionsOf(r: RoundState): PostedMessage[] {
  return r.speakers.map((w) => r.contributions[w]).filter((m): m is PostedMessage => m !== undefined);
}

/**
 * The room's rules: the one system message of every roundtable call, the same for every seat and
 * every round of a meeting. Each seat's name and task come in the last message.
 */
function roomRules(s: MeetingState): string {
  return [
    'A structured roundtable of AI agents: workers argue the topic over rounds, a judging seat reviews each round, ' +
      'an assistant opens and closes the meeting. The transcript comes first; your seat and task come last.',
    EVIDENCE_RULE,
    `Workers: argue from evidence and answer the others' strongest point, in about ${s.config.replyMaxTokens} tokens or less. ` +
      `End with one stance marker on its own line: ${stanceMarker('AGREE')} if you support the position the room converges on, ` +
      `${stanceMarker('DISAGREE')} if you oppose it, or ${stanceMarker('NEUTRAL')}. Nothing to add: reply [PASS] and sit out the remaining rounds. ` +
      WORKER_ANTI_CONFORMITY,
  ].join('\n');
}

/** The seat and the task: always the last message, so everything before it is shared. */
function seat(me: Participant, role: string, task: string[]): ChatMessage {
  const persona = me.persona ? [`${me.role === 'worker' ? 'Your perspective' : 'Your brief'}: ${personaOf(me)}`] : [];
  return {
    role: 'user',
    content: [`You are ${me.name}, ${role}. Posts from=${me.name} above are your own.`, ...persona, ...task]
      .filter(Boolean)
      .join('\n\n'),
  };
}

/** What a round adds to the transcript once it is over: its posts, then the judge's notes and the human's posts. */
function roundBlock(s: MeetingState, r: RoundState, upTo: 'contributions' | 'all' = 'all'): string {
  const posts = contributionsOf(r).map(wrap);
  const parts = [`Round ${r.round}:\n${posts.join('\n\n') || '(nobody spoke)'}`];
  if (upTo === 'all') {
    const notes = judgeText(s, r);
    if (notes) parts.push(`Judge's feedback on round ${r.round}:\n${notes}`);
    if (r.humanPosts.length > 0) {
      parts.push(`From the human running the meeting:\n${r.humanPosts.map(wrap).join('\n\n')}`);
    }
  }
  return parts.join('\n\n');
}

/** The last round the rolling summary covers (0: none; the transcript shows every round). */
export function summaryCovers(s: MeetingState): number {
  if (!s.summary) return 0;
  return Math.max(0, ...s.rounds.filter((r) => r.summary !== undefined).map((r) => r.round));
}

/**
 * The shared transcript: topic, context, briefing, the human's posts before round 1, then the
 * summary of the compacted rounds, then every round after it up to `through` in full; `current`
 * (a round in progress, for the judge) adds that round's contributions.
 */
function transcript(s: MeetingState, o: PromptOptions, through: number, current?: RoundState): string {
  return [...head(s, o), ...rounds(s, through, current)].join('\n\n');
}

/** What every prompt of the meeting starts with and never changes: topic, context, briefing, early human posts. */
function head(s: MeetingState, o: PromptOptions): string[] {
  const parts = stableHead(s, o);
  if (s.briefing) parts.push(`Briefing:\n${wrap(s.briefing)}`);
  if (s.pendingHumanPosts.length > 0) {
    parts.push(`From the human running the meeting:\n${s.pendingHumanPosts.map(wrap).join('\n\n')}`);
  }
  return parts;
}

/** What the rounds add after the head: the summary of the compacted ones, then each later round. */
function rounds(s: MeetingState, through: number, current?: RoundState): string[] {
  const parts: string[] = [];
  const covered = summaryCovers(s);
  if (covered > 0) parts.push(summaryBlock(s, 'Rolling summary of the discussion so far:'));
  for (const r of s.rounds) {
    if (r.round <= covered || r.round > through) continue;
    // A round nobody spoke in (a consensus ballot round, a round cut short) adds nothing.
    if (contributionsOf(r).length === 0 && !judgeSpeaks(r) && r.humanPosts.length === 0) continue;
    parts.push(roundBlock(s, r));
  }
  if (current && current.round > covered) parts.push(roundBlock(s, current, 'contributions'));
  return parts;
}

function withTranscript(s: MeetingState, text: string, last: ChatMessage): ChatMessage[] {
  return [{ role: 'system', content: roomRules(s) }, { role: 'user', content: text }, last];
}

const chunkTokens = new Map<string, number>();

/**
 * Tokens of a transcript-like text, counted paragraph by paragraph (split at blank lines) with each
 * paragraph remembered: a transcript is the previous one plus a round, so only the new round is
 * tokenized. Within a few tokens of `countTokens` (a merge across a blank line is not seen).
 */
export function countTokensByParagraph(text: string): number {
  let n = 0;
  for (const part of text.split('\n\n')) {
    let t = chunkTokens.get(part);
    if (t === undefined) {
      t = countTokens(part);
      if (chunkTokens.size >= 16_384) chunkTokens.clear();
      chunkTokens.set(part, t);
    }
    n += t;
  }
  // Each blank line between paragraphs is one token.
  return n + (text.split('\n\n').length - 1);
}

/**
 * Whether the rounds before `round` should be folded into the rolling summary now (while `round`
 * is judged): only when what the rounds add to the transcript the next round would be shown (the
 * summary and the rounds after it; the head — topic, context, briefing — is the same in every
 * prompt and cached once) passes the threshold, and there is a round older than `round` that the
 * summary does not cover yet. So attached context costs its tokens in every call and never changes
 * when the meeting compacts.
 */
export function compactionDue(s: MeetingState, round: RoundState): boolean {
  if (round.round - 1 <= summaryCovers(s)) return false;
  const limit = s.config.compactAtTokens ?? DEFAULT_COMPACT_AT_TOKENS;
  const text = rounds(s, round.round).join('\n\n');
  // Cheap bound first: a token is at least one character.
  if (text.length <= limit) return false;
  return countTokensByParagraph(text) > limit;
}

/**
 * A worker's prompt for `round`: the shared transcript of every earlier round (its own posts
 * under its own name), then its seat and the round line. Round 1 stays independent in every
 * order; in sequential and shuffle order, the replies given earlier in this round come last.
 */
export function workerPrompt(
  s: MeetingState,
  me: Participant,
  round: RoundState,
  o: PromptOptions = {},
): ChatMessage[] {
  const previous = s.rounds.find((r) => r.round === round.round - 1);
  const task: string[] = [];
  if (s.config.order !== 'parallel' && round.round > 1) {
    const earlier = contributionsOf(round);
    if (earlier.length > 0) task.push(`Earlier in this round:\n${earlier.map(wrap).join('\n\n')}`);
  }
  const mine = previous?.stances[me.name]?.stance;
  const last =
    mine && mine !== 'UNKNOWN' && mine !== 'TIMEOUT' ? ` Your stance in round ${previous?.round}: ${mine}.` : '';
  task.push(
    round.final
      ? `This is round ${round.round}.${last} ${FINAL_ROUND_ANNOUNCEMENT} State your final position.`
      : `This is round ${round.round} of at most ${s.config.maxRounds}.${last} Give your contribution now.`,
  );
  return withTranscript(s, transcript(s, o, round.round - 1), seat(me, 'a worker in a structured roundtable', task));
}

/**
 * The judge reviews one round: the shared transcript (its own earlier corrections included, so it
 * can tell a worker repeating itself or ignoring a correction) with this round's contributions.
 */
export function judgePrompt(s: MeetingState, me: Participant, round: RoundState, o: PromptOptions = {}): ChatMessage[] {
  return withTranscript(
    s,
    transcript(s, o, round.round - 1, round),
    // The judge's own rules are in its seat, not in the system message every worker pays for
    // (they say it never argues a position).
    seat(me, 'the judge of a structured roundtable', [
      JUDGE_ANTI_CONFORMITY.join(' '),
      `Review round ${round.round} (workers: ${round.speakers.join(', ')}). Reply in exactly one form: ` +
        'CLEAN alone if the round needs no correction; or one line per worker to correct, ' +
        '"@name: <the problem> — <what is needed>" (off-topic, unsupported claim, ignoring a point, repeating itself); ' +
        'or "CONVERGED: <reason>" on its own line when more rounds would add nothing.',
    ]),
  );
}

export function briefingPrompt(s: MeetingState, me: Participant, o: PromptOptions = {}): ChatMessage[] {
  const workers = s.participants.filter((p) => p.role === 'worker').map((p) => p.name);
  return withTranscript(
    s,
    stableHead(s, o).join('\n\n'),
    seat(me, 'the assistant who chairs a structured roundtable: you never take a side', [
      `Open the meeting in under 80 words: restate the topic precisely, name what a good answer must settle, and invite ${workers.join(', ')} to begin.`,
    ]),
  );
}

const ASSISTANT_ROLE =
  "the meeting's assistant: you keep its rolling summary and its closing record, factual, naming people, never taking a side";

/**
 * A compaction: folds every round up to `round` (and the summary before it) into a new rolling
 * summary, which then stands in for them in every prompt. The transcript shown is the one the
 * judge of the next round is shown, so the call reads a cached prefix.
 */
export function summaryPrompt(
  s: MeetingState,
  me: Participant,
  round: RoundState,
  o: PromptOptions = {},
): ChatMessage[] {
  const from = summaryCovers(s) + 1;
  return withTranscript(
    s,
    transcript(s, o, round.round),
    seat(me, ASSISTANT_ROLE, [
      `Update the rolling summary to cover everything above up to the end of round ${round.round}` +
        `${from > 1 ? ` (the summary above covers rounds 1–${from - 1})` : ''}: positions, who holds them, evidence, ` +
        `open questions, the judge's open corrections, the human's requests. Keep it under ${s.config.summaryMaxTokens} tokens: merge, do not append. ` +
        'Reply with the new summary only.',
    ]),
  );
}

export function digestPrompt(s: MeetingState, me: Participant, o: PromptOptions = {}): ChatMessage[] {
  const voted = [...s.rounds].reverse().find((r) => Object.keys(r.ballots).length > 0);
  const ballots = voted
    ? `Last ballots (round ${voted.round}):\n${Object.entries(voted.ballots)
        .map(([w, b]) => ballotOf(s, w, b))
        .join('\n\n')}`
    : '';
  const stances = Object.entries(finalStances(s))
    .map(([w, st]) => `${w}: ${st}`)
    .join(', ');
  const through = s.rounds.at(-1)?.round ?? 0;
  return withTranscript(
    s,
    transcript(s, o, through),
    seat(me, ASSISTANT_ROLE, [
      'Write the closing digest.',
      ballots,
      `Final stances: ${stances || '(none)'}`,
      'Reply with exactly three lines:\n' +
        'CONSENSUS_STATEMENT: <one sentence: the position the room landed on, or that it did not land>\n' +
        'CONTRIBUTORS: <who contributed what, e.g. "ada proposed X, grace countered with Y">\n' +
        'DISSENT: <who disagreed or held back and why; "none" only if everyone agreed>',
    ]),
  );
}

/**
 * The one follow-up a worker gets when its reply had no readable stance marker: its own reply
 * back as its own turn, and a short question naming what was missing.
 */
export function stanceFollowupPrompt(turn: ChatMessage[], reply: string): ChatMessage[] {
  return [
    ...turn,
    { role: 'assistant', content: reply },
    {
      role: 'user',
      content:
        'Your reply above has no stance marker. Reply with only the marker for the position you just argued: ' +
        `${STANCE_CHOICES}.`,
    },
  ];
}
