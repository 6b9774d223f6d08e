/**
 * Was the debate worth it, for one meeting? Pure, from the folded state (the daemon's digest and
 * minutes and the room's live stance table read the same figures):
 * - what a plain majority of round 1 (independent: no worker sees another before it answers)
 *   would have decided, against the final outcome;
 * - every stance flip, with the round and the posts, judge notes and human posts it followed;
 * - flips toward the previous round's majority that followed no new argument: "possible conformity";
 * - what the rounds after the first cost in billed tokens.
 *
 * Definitions (documented in docs/cli.md, "On every meeting"):
 * - roundtable outcome = the stance (AGREE / DISAGREE / NEUTRAL) held by more than half of the
 *   workers, else "no majority"; round 1 uses round-1 stances, the final outcome each worker's last
 *   stance. Consensus outcome = the option accepted by more than half of the valid round-1 ballots
 *   (most accepts wins, a tie is "no majority") against the decision the meeting reached.
 * - no new argument = no judge note or human post in between, and under 20% of the content words
 *   of the majority side's posts are words the worker had not already seen or written.
 */
import type { ConsensusLevel, StanceCell } from './domain';
import type { MeetingState, PostedMessage } from './state';
import { workersOf } from './state';

export const NO_MAJORITY = 'no majority';
/** Below this share of new content words, the posts a worker followed carried no new argument. */
export const NOVELTY_THRESHOLD = 0.2;

export interface FollowedPost {
  kind: 'post' | 'judge' | 'human';
  from: string;
  /** Log seq of what was followed. */
  seq: number;
}

export interface StanceFlip {
  worker: string;
  /** The round of the new stance. */
  round: number;
  from: StanceCell;
  to: StanceCell;
  /** What the worker was shown between its two stances. */
  followed: FollowedPost[];
  /** The new stance is the one most other workers held in the round before. */
  towardMajority: boolean;
  possibleConformity: boolean;
}

export interface DebateMetrics {
  /** A plain majority of round 1 (stances or ballots); `no majority` when none. */
  round1Majority: string;
  finalOutcome: string;
  /** False when the meeting ran one round: nothing could change. */
  changedOutcome: boolean;
  rounds: number;
  flips: StanceFlip[];
  /** Billed tokens of the turns, judge and summary calls of rounds 2 and later. */
  laterRoundsBilledTokens: number;
}

const POSITIONS: readonly StanceCell[] = ['AGREE', 'DISAGREE', 'NEUTRAL'];
const isPosition = (s: StanceCell | undefined): s is StanceCell => s !== undefined && POSITIONS.includes(s);

function strictMajority(values: string[], voters: number): string {
  for (const v of new Set(values)) if (values.filter((x) => x === v).length * 2 > voters) return v;
  return NO_MAJORITY;
}

/**
 * A post's content words, worked out once per post: the state keeps each posted message as one
 * object, so the room, which reads these figures after every event, does not re-scan the log.
 */
const wordsOf = new WeakMap<PostedMessage, ReadonlySet<string>>();
function words(m: PostedMessage): ReadonlySet<string> {
  let w = wordsOf.get(m);
  if (!w) {
    // The stance marker is the position, not an argument.
    const argument = m.text.replace(/\[\s*(stance|pass)\b[^\]]*\]/gi, '');
    wordsOf.set(m, (w = new Set(argument.toLowerCase().match(/[\p{L}\p{N}]{4,}/gu) ?? [])));
  }
  return w;
}

function round1Ballots(s: MeetingState): string {
  const ballots = Object.values(s.rounds[0]?.ballots ?? {}).filter((b) => b.valid);
  const accepts = new Map<string, number>();
  for (const b of ballots)
    for (const v of b.votes) if (v.vote === 'accept') accepts.set(v.option, (accepts.get(v.option) ?? 0) + 1);
  const ranked = [...accepts.entries()].sort((a, b) => b[1] - a[1]);
  const [top, second] = ranked;
  if (!top || top[1] * 2 <= ballots.length || (second && second[1] === top[1])) return NO_MAJORITY;
  return top[0];
}

/** Every worker's change of position, in round order, with what it followed (roundtable mode). */
export function stanceFlips(s: MeetingState): StanceFlip[] {
  const flips: StanceFlip[] = [];
  for (const w of workersOf(s).map((p) => p.name)) {
    let last: { stance: StanceCell; round: number } | undefined;
    const seen = new Set<string>();
    const absorb = (m: PostedMessage | undefined) => m && words(m).forEach((x) => seen.add(x));
    for (const [i, r] of s.rounds.entries()) {
      const prev = s.rounds[i - 1];
      const st = r.stances[w]?.stance;
      if (isPosition(st) && last && st !== last.stance && prev) {
        const others = Object.entries(prev.stances).filter(([name]) => name !== w);
        const majority = strictMajority(others.map(([, x]) => x.stance).filter(isPosition), others.length);
        const followed: FollowedPost[] = [];
        const majorityPosts: PostedMessage[] = [];
        for (const [name, m] of Object.entries(prev.contributions)) {
          if (name === w) continue;
          followed.push({ kind: 'post', from: name, seq: m.seq });
          if (prev.stances[name]?.stance === st) majorityPosts.push(m);
        }
        if (prev.judge?.text) followed.push({ kind: 'judge', from: 'judge', seq: prev.judge.seq });
        for (const h of prev.humanPosts) followed.push({ kind: 'human', from: h.from, seq: h.seq });
        const newWords = majorityPosts.flatMap((m) => [...words(m)]);
        const novel = newWords.filter((x) => !seen.has(x)).length / Math.max(1, newWords.length);
        const towardMajority = majority === st;
        const pressureOnly = !prev.judge?.text && prev.humanPosts.length === 0 && novel < NOVELTY_THRESHOLD;
        flips.push({
          worker: w,
          round: r.round,
          from: last.stance,
          to: st,
          followed,
          towardMajority,
          possibleConformity: towardMajority && pressureOnly,
        });
      }
      if (isPosition(st)) last = { stance: st, round: r.round };
      // What the worker has now seen or said: its own post and the others' posts of this round.
      absorb(r.contributions[w]);
      if (i > 0) for (const m of Object.values(prev?.contributions ?? {})) absorb(m);
    }
  }
  return flips.sort((a, b) => a.round - b.round || a.worker.localeCompare(b.worker));
}

export function debateMetrics(s: MeetingState): DebateMetrics {
  const workers = workersOf(s).map((p) => p.name);
  let round1Majority: string;
  let finalOutcome: string;
  if (s.mode === 'consensus') {
    round1Majority = round1Ballots(s);
    finalOutcome = consensusOutcome(s).decision ?? NO_MAJORITY;
  } else {
    const first = s.rounds[0];
    round1Majority = strictMajority(workers.map((w) => first?.stances[w]?.stance).filter(isPosition), workers.length);
    const finals: StanceCell[] = [];
    for (const w of workers) {
      let st: StanceCell | undefined;
      for (const r of s.rounds) if (isPosition(r.stances[w]?.stance)) st = r.stances[w]?.stance;
      if (st) finals.push(st);
    }
    finalOutcome = strictMajority(finals, workers.length);
  }
  const laterRoundsBilledTokens = Object.entries(s.usageByRound ?? {})
    .filter(([round]) => Number(round) > 1)
    .reduce((n, [, u]) => n + u.promptTokens + u.completionTokens, 0);
  return {
    round1Majority,
    finalOutcome,
    changedOutcome: s.rounds.length > 1 && round1Majority !== finalOutcome,
    rounds: s.rounds.length,
    flips: s.mode === 'consensus' ? [] : stanceFlips(s),
    laterRoundsBilledTokens,
  };
}

/** Consensus mode: the decided option (by the votes or by the human) and the last verdicts. */
export function consensusOutcome(s: MeetingState): {
  decision?: string;
  label?: string;
  actualConsensus: number;
  level: ConsensusLevel;
  by: 'votes' | 'human' | 'none';
} {
  const last = [...s.rounds].reverse().find((r) => r.verdict);
  const picked = [...s.resolutions].reverse().find((r) => r.action === 'pick')?.option;
  const decision = picked ?? (s.closed?.reason === 'verdict_reached' ? last?.verdict?.decision : undefined);
  const ballots = Object.values(last?.ballots ?? {}).filter((b) => b.valid);
  const votesOn = decision ? ballots.map((b) => b.votes.find((v) => v.option === decision)) : [];
  const agree = votesOn.filter((v) => v?.vote === 'accept').length;
  const reject = votesOn.filter((v) => v?.vote === 'reject').length;
  let level: ConsensusLevel = 'NONE';
  if (decision && ballots.length >= 2 && agree === ballots.length) level = 'FULL';
  else if (decision && ballots.length >= 2 && reject === 0 && agree * 3 >= ballots.length * 2) level = 'MAJORITY';
  const out: ReturnType<typeof consensusOutcome> = {
    actualConsensus: last?.verdict?.actualConsensus ?? 0,
    level,
    by: picked ? 'human' : decision ? 'votes' : 'none',
  };
  if (decision) {
    out.decision = decision;
    const label = s.options.find((o) => o.id === decision)?.label;
    if (label) out.label = label;
  }
  return out;
}

/** "grace DISAGREE → AGREE in round 2 after ada, the judge (possible conformity: no new argument)": plain text. */
export function flipText(f: StanceFlip): string {
  const after = f.followed.map((x) =>
    x.kind === 'judge' ? 'the judge' : x.kind === 'human' ? `${x.from} (human)` : x.from,
  );
  return `${f.worker} ${f.from} → ${f.to} in round ${f.round}${after.length ? ` after ${[...new Set(after)].join(', ')}` : ''}${f.possibleConformity ? ' (possible conformity: no new argument)' : ''}`;
}
