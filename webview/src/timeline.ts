/**
 * The room's message list as entries: posted messages, each round's judge feedback after that
 * round's messages, each workspace tool call before the message it came before, then the calls
 * being written. A call's live entry has the key of the message it turns into. The list is kept
 * from one state to the next (Timeline): an event appends its entries or replaces the few it
 * changes, found through an index by key, so it costs what it touches, not the meeting's length.
 * Shown by timelineList.ts.
 */
import type { MeetingState, PostedMessage, RoundState, StanceCell } from '@roundtable/protocol';
import { judgeKey, visibleLive, type LiveEntry } from '@roundtable/protocol';
import { stripStance } from './markdown';

export interface Entry {
  key: string;
  from: string;
  role: string;
  kind: string;
  label: string;
  /** What is shown (stance marker stripped from contributions). */
  text: string;
  /** What Copy copies: the text as the agent wrote it. */
  raw: string;
  streaming: boolean;
  /** Shown as plain text, not Markdown (a tool call's line). */
  plain?: boolean;
  stance?: StanceCell;
  /** The model's thinking (shown folded, as plain text; never in `text` or `raw`). */
  thinking?: string;
  /** Tokens of that thinking, where the log says. */
  thinkingTokens?: number;
}

/**
 * Timeline entries and keys the room visits (built, compared or keyed by the list), counted by the
 * room bench and its test: what one event costs the timeline must not grow with the meeting.
 */
export const timelineWork = { visited: 0 };

const LIVE_LABEL: Record<LiveEntry['purpose'], (round: number) => string> = {
  turn: (r) => `round ${r} · writing…`,
  ballot: (r) => `round ${r} · voting…`,
  proposal: () => 'proposing options…',
  briefing: () => 'opening the meeting…',
  judge: (r) => `judging round ${r}…`,
  summary: (r) => `summarising round ${r}…`,
  digest: () => 'writing the digest…',
};

type Stances = RoundState['stances'];

function fromMessage(stances: Stances | undefined, m: PostedMessage): Entry {
  const contribution = m.kind === 'contribution';
  const stance = contribution ? stances?.[m.from]?.stance : undefined;
  return {
    key: m.messageId,
    from: m.from,
    role: m.role,
    kind: m.kind,
    label: contribution ? `round ${m.round}` : m.kind === 'human' ? 'you' : m.kind,
    text: contribution ? stripStance(m.text) : m.text,
    raw: m.text,
    streaming: false,
    ...(stance ? { stance } : {}),
    ...(m.thinking ? { thinking: m.thinking } : {}),
    ...(m.thinkingTokens !== undefined ? { thinkingTokens: m.thinkingTokens } : {}),
  };
}

type ToolCallLine = NonNullable<MeetingState['toolCalls']>[number];

/** What a tool call asked for, in a few words: the path, the query or the folder. */
function toolAsk(c: Pick<ToolCallLine, 'tool' | 'args'>): string {
  let a: Record<string, unknown> = {};
  try {
    const v: unknown = JSON.parse(c.args);
    if (v && typeof v === 'object' && !Array.isArray(v)) a = v as Record<string, unknown>;
  } catch {
    return c.args.slice(0, 200);
  }
  const str = (k: string): string => (typeof a[k] === 'string' || typeof a[k] === 'number' ? String(a[k]) : '');
  const lines = str('startLine') ? ` lines ${str('startLine')}-${str('endLine') || 'end'}` : '';
  const glob = str('glob') ? ` in ${str('glob')}` : '';
  if (c.tool === 'read_file') return `${str('path')}${lines}`;
  if (c.tool === 'search') return `“${str('query')}”${glob}`;
  if (c.tool === 'list_files') return `${str('path') || '.'}${glob}`;
  return c.args.slice(0, 200);
}

/** A seat's role by name (a name no longer seated speaks as a worker). */
function roleOf(s: MeetingState, name: string): string {
  return s.participants.find((p) => p.name === name)?.role ?? 'worker';
}

function fromToolCall(s: MeetingState, c: ToolCallLine): Entry {
  const text = `${c.tool} ${toolAsk(c)} → ${c.summary}`;
  return {
    key: `tool:${c.seq}`,
    from: c.participant,
    role: roleOf(s, c.participant),
    kind: c.ok ? 'tool' : 'tool-refused',
    label: `read the workspace · round ${c.round}`,
    text,
    raw: text,
    streaming: false,
    plain: true,
  };
}

/** A round's judge feedback as an entry, or nothing when the round has none to show. */
function fromJudge(judge: string, r: RoundState): Entry | undefined {
  if (!r.judge || !(r.judge.text || r.judge.converged)) return undefined;
  return {
    key: judgeKey(judge, r.round),
    from: judge,
    role: 'judge',
    kind: 'judge',
    label: `judge · round ${r.round}`,
    text: r.judge.converged ? `**Converged:** ${r.judge.converged}` : r.judge.text,
    raw: r.judge.converged ? `CONVERGED: ${r.judge.converged}` : r.judge.text,
    streaming: false,
  };
}

function fromLive(s: MeetingState, x: LiveEntry): Entry {
  return {
    key: x.key,
    from: x.from,
    role: roleOf(s, x.from),
    kind: x.purpose,
    label: LIVE_LABEL[x.purpose](x.round),
    text: x.text,
    raw: x.text,
    streaming: true,
    ...(x.thinking ? { thinking: x.thinking } : {}),
  };
}

function sameEntry(a: Entry, b: Entry): boolean {
  const keys = Object.keys(b) as (keyof Entry)[];
  return keys.length === Object.keys(a).length && keys.every((k) => a[k] === b[k]);
}

/** What the timeline last read of the state: each part is compared by identity (the reducer shares what an event leaves alone). */
type Seen = Pick<MeetingState, 'meetingId' | 'participants' | 'messages' | 'rounds'> & {
  toolCalls: NonNullable<MeetingState['toolCalls']>;
};
const NOTHING_SEEN: Seen = { meetingId: '', participants: [], messages: [], rounds: [], toolCalls: [] };

/**
 * The timeline, kept from one frame to the next. Entries before the last posted message keep their
 * places for good (a message is only ever appended; a judge's feedback or a tool call comes after
 * every message already posted): those are `fixed`. After them wait the feedback and tool calls
 * that the next message may still go after (`pending`), then the live entries. Each update reads
 * only what changed (messages and tool calls appended, the rounds from the last one seen) and says
 * what moved: the leading `stable` entries kept their places, `dirty` lists those of them that
 * changed. A state that does not follow the last one (another meeting, a log folded afresh) is
 * read whole again (`reset`), keeping the entries that did not change.
 */
export class Timeline {
  version = 0;
  /** This update read the state whole: every entry may have moved. */
  reset = true;
  /** Leading entries whose places did not change in this update. */
  stable = 0;
  /** Indexes below `stable` whose entries changed. */
  dirty: number[] = [];
  private fixed: Entry[] = [];
  private pending: { entry: Entry; round: number; seq: number; judge: boolean }[] = [];
  private live: Entry[] = [];
  /** Index in `fixed` by key. */
  private index = new Map<string, number>();
  /** Each participant's contributions by round (index in `fixed`), for stances recorded after them. */
  private contributions = new Map<string, { i: number; m: PostedMessage }[]>();
  private stances = new Map<number, Stances>();
  private seen: Seen = NOTHING_SEEN;
  private judge = 'judge';
  private maxRound = -Infinity;
  private lastSeq = 0;

  /** The entry at index `i` (fixed, pending, then live). */
  at(i: number): Entry | undefined {
    const p = i - this.fixed.length;
    if (p < 0) return this.fixed[i];
    return p < this.pending.length ? this.pending[p]?.entry : this.live[p - this.pending.length];
  }

  get length(): number {
    return this.fixed.length + this.pending.length + this.live.length;
  }

  update(s: MeetingState, live: readonly LiveEntry[]): void {
    this.version++;
    this.dirty = [];
    const was = this.seen;
    const n = was.messages.length;
    const follows =
      s.meetingId === was.meetingId &&
      s.participants === was.participants &&
      s.messages.length >= n &&
      (n === 0 || s.messages[n - 1] === was.messages[n - 1]) &&
      (s.toolCalls ?? []).length >= was.toolCalls.length &&
      (was.toolCalls.length === 0 || s.toolCalls?.[was.toolCalls.length - 1] === was.toolCalls.at(-1)) &&
      s.rounds.length >= was.rounds.length;
    if (!follows || !this.advance(s)) this.readWhole(s);
    this.updateLive(s, visibleLive(s, live));
  }

  private readWhole(s: MeetingState): void {
    const before = new Map<string, Entry>();
    for (let i = 0; i < this.fixed.length + this.pending.length; i++) {
      const e = this.at(i);
      if (e) before.set(e.key, e);
    }
    this.fixed = [];
    this.pending = [];
    this.index.clear();
    this.contributions.clear();
    this.stances.clear();
    this.seen = { ...NOTHING_SEEN, meetingId: s.meetingId };
    this.judge = s.participants.find((p) => p.role === 'judge')?.name ?? 'judge';
    this.maxRound = -Infinity;
    this.lastSeq = 0;
    this.advance(s);
    // Entries equal to the last frame's are handed back as those objects: their templates are not built again.
    const keep = (e: Entry): Entry => {
      timelineWork.visited++;
      const b = before.get(e.key);
      return b && sameEntry(b, e) ? b : e;
    };
    this.fixed = this.fixed.map(keep);
    for (const p of this.pending) p.entry = keep(p.entry);
    this.reset = true;
    this.stable = 0;
    this.dirty = [];
  }

  /** Reads what changed since the last state; false when it cannot be done in place (then the state is read whole). */
  private advance(s: MeetingState): boolean {
    const was = this.seen;
    this.reset = false;
    this.stable = this.fixed.length;
    if (s.rounds !== was.rounds)
      for (let i = Math.max(0, was.rounds.length - 1); i < s.rounds.length; i++) {
        const r = s.rounds[i];
        timelineWork.visited++;
        if (r && r !== was.rounds[i] && !this.roundChanged(r)) return false;
      }
    const tools = s.toolCalls ?? [];
    for (let i = was.toolCalls.length; i < tools.length; i++) {
      const c = tools[i];
      timelineWork.visited++;
      if (!c || c.seq < this.lastSeq) return false;
      this.pending.push({ entry: fromToolCall(s, c), round: c.round, seq: c.seq, judge: false });
    }
    for (let i = was.messages.length; i < s.messages.length; i++) {
      const m = s.messages[i];
      if (m) this.append(m);
    }
    const { meetingId, participants, messages, rounds } = s;
    this.seen = { meetingId, participants, messages, rounds, toolCalls: tools };
    return true;
  }

  /** A round the last state did not hold as it is now: its stances and its judge's feedback. */
  private roundChanged(r: RoundState): boolean {
    if (this.stances.get(r.round) !== r.stances) {
      this.stances.set(r.round, r.stances);
      for (const from of Object.keys(r.stances))
        for (const { i, m } of this.contributions.get(`${r.round}\n${from}`) ?? []) {
          timelineWork.visited++;
          this.replace(i, fromMessage(r.stances, m));
        }
    }
    const entry = fromJudge(this.judge, r);
    const key = judgeKey(this.judge, r.round);
    const at = this.index.get(key);
    if (at !== undefined) {
      if (!entry) return false;
      this.replace(at, entry);
      return true;
    }
    const p = this.pending.findIndex((x) => x.entry.key === key);
    if (p >= 0) {
      if (entry) this.pending[p] = { ...this.pending[p]!, entry };
      else this.pending.splice(p, 1);
      return true;
    }
    if (!entry) return true;
    // Feedback goes before the first message of a later round: one already posted means it lands in the middle.
    if (this.maxRound > r.round) return false;
    let q = 0;
    while (q < this.pending.length && this.pending[q]!.judge && this.pending[q]!.round < r.round) q++;
    this.pending.splice(q, 0, { entry, round: r.round, seq: 0, judge: true });
    return true;
  }

  /** A posted message: the feedback and tool calls that came before it take their places, then it. */
  private append(m: PostedMessage): void {
    const before = (p: Timeline['pending'][number]): boolean => (p.judge ? p.round < m.round : p.seq < m.seq);
    timelineWork.visited += this.pending.length + 1;
    for (const p of this.pending) if (before(p)) this.place(p.entry);
    this.pending = this.pending.filter((p) => !before(p));
    if (m.kind === 'contribution') {
      const k = `${m.round}\n${m.from}`;
      this.contributions.set(k, [...(this.contributions.get(k) ?? []), { i: this.fixed.length, m }]);
    }
    this.place(fromMessage(this.stances.get(m.round), m));
    this.maxRound = Math.max(this.maxRound, m.round);
    this.lastSeq = m.seq;
  }

  private place(e: Entry): void {
    this.index.set(e.key, this.fixed.length);
    this.fixed.push(e);
  }

  private replace(i: number, e: Entry): void {
    const old = this.fixed[i];
    if (old && sameEntry(old, e)) return;
    this.fixed[i] = e;
    if (i < this.stable) this.dirty.push(i);
  }

  private updateLive(s: MeetingState, visible: readonly LiveEntry[]): void {
    const last = new Map(this.live.map((e) => [e.key, e]));
    timelineWork.visited += this.live.length + visible.length;
    this.live = visible.map((x) => {
      const e = fromLive(s, x);
      const b = last.get(e.key);
      return b && sameEntry(b, e) ? b : e;
    });
  }
}
