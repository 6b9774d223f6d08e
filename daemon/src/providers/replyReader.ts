/**
 * Reading a streamed reply piece by piece: what the live view shows in which channel while the
 * reply comes, and the final split when it ends (`splitThinking` on the whole content, so a live
 * view that guessed wrong is corrected by the posted message). One pass: each piece is looked at
 * once, plus at most a short tail held back while it may still become a tag.
 */
import { splitThinking, type FinishReason, type ReadReply, type ReplyChannel } from './reply';

/** A tag the live view acts on, anchored where a `<` was found. */
const LIVE_TAG = /<\|([a-z][a-z0-9_]{0,40})\|>|<(\/?)think(?:ing)?>/iy;
/** A tail that may still grow into a LIVE_TAG: held back until the next piece says. */
const TAG_PREFIX = /^<(?:\|[a-z0-9_]{0,41}\|?|\/?(?:t(?:h(?:i(?:n(?:k(?:i(?:n(?:g)?)?)?)?)?)?)?)?)$/i;
/** The stripped harmony headers (tokens removed): the start of an analysis, the next message's. */
const STRIPPED_LEAD = /^(?:assistant)?analysis(?=[^\s\w]|[A-Z])/;
const STRIPPED_HEADS = ['assistantanalysis', 'assistantfinal', 'assistantcommentary'];
const STRIPPED_NEXT = /assistant(final|analysis|commentary)/y;
const LONGEST_HEAD = 'assistantcommentary'.length;
/** A harmony header kept no longer than this while it is read. */
const MAX_HEADER = 256;

/** True when `tail` is a proper prefix of one of `words`. */
function prefixOf(tail: string, words: string[]): boolean {
  return words.some((w) => w.length > tail.length && w.startsWith(tail));
}

/** What the live view shows: think tags, harmony channels (with their tokens or stripped of them). */
class LiveView {
  private pending = '';
  /** Nothing shown yet since the last boundary: leading white space is dropped. */
  private atStart = true;
  private inThink = false;
  private channel: ReplyChannel = 'reply';
  private header: string | undefined;
  /** gpt-oss with its tokens stripped (`analysis…assistantfinal…`): undecided until the first words. */
  private stripped: boolean | undefined;

  constructor(private readonly emit?: (text: string, channel: ReplyChannel) => void) {}

  add(piece: string): void {
    this.pending += piece;
    this.drain();
  }

  /** The held-back tail that never became a tag, shown where it was. */
  flush(): void {
    this.text(this.pending);
    this.pending = '';
  }

  private text(t: string): void {
    if (!t || this.header !== undefined) {
      if (this.header !== undefined && this.header.length < MAX_HEADER) this.header += t.slice(0, MAX_HEADER);
      return;
    }
    const channel = this.inThink ? 'thinking' : this.channel;
    const shown = this.atStart ? t.trimStart() : t;
    if (!shown) return;
    this.atStart = false;
    this.emit?.(shown, channel);
  }

  /** Decides the stripped form from the first words; false when it is still undecided (hold). */
  private decideStripped(s: string): boolean {
    const lead = s.trimStart();
    if (STRIPPED_LEAD.test(lead)) {
      this.stripped = true;
      this.channel = 'thinking';
      this.pending = lead.replace(STRIPPED_LEAD, '');
      return true;
    }
    if (lead === '') {
      // Nothing but white space yet: none of it is shown (the live view drops it), none is kept.
      this.pending = '';
      return false;
    }
    if (lead.length <= 'assistantanalysis'.length && prefixOf(lead, ['assistantanalysis', 'analysis'])) return false;
    // "analysis" then one more character decides it.
    if (/^(?:assistant)?analysis$/.test(lead)) return false;
    this.stripped = false;
    return true;
  }

  private drain(): void {
    if (this.stripped === undefined && !this.decideStripped(this.pending)) return;
    const s = this.pending;
    const end = this.stripped ? heldHead(s) : s.length;
    let from = 0;
    let i = 0;
    let nextTag = s.indexOf('<');
    let nextHead = this.stripped ? s.indexOf('assistant') : -1;
    for (;;) {
      if (nextTag !== -1 && nextTag < i) nextTag = s.indexOf('<', i);
      if (nextHead !== -1 && nextHead < i) nextHead = s.indexOf('assistant', i);
      const at = Math.min(nextTag === -1 ? end : nextTag, nextHead === -1 ? end : nextHead, end);
      if (at >= end) break;
      const isTag = s[at] === '<';
      const re = isTag ? LIVE_TAG : STRIPPED_NEXT;
      re.lastIndex = at;
      const m = re.exec(s);
      if (!m) {
        // A tail that may still grow into a tag is held until the next piece says.
        if (isTag && s.length - at <= 44 && TAG_PREFIX.test(s.slice(at))) {
          this.text(s.slice(from, at));
          this.pending = s.slice(at);
          return;
        }
        i = at + 1;
        continue;
      }
      this.text(s.slice(from, at));
      if (isTag) this.tag(m);
      else this.head(m);
      from = i = at + m[0].length;
    }
    this.text(s.slice(from, end));
    this.pending = s.slice(end);
  }

  /** A tag acted on: harmony headers and message ends, think tags; other `<|word|>` tokens dropped. */
  private tag(m: RegExpExecArray): void {
    const word = m[1]?.toLowerCase();
    if (word === 'channel' || word === 'start') this.header = '';
    else if (word === 'message') {
      const name = /^\s*(\w+)/.exec(this.header ?? '')?.[1]?.toLowerCase();
      this.channel = name === 'analysis' || name === 'commentary' ? 'thinking' : 'reply';
      this.header = undefined;
      this.atStart = true;
    } else if (word === 'end' || word === 'return' || word === 'call') {
      this.header = undefined;
      this.channel = 'reply';
      this.atStart = true;
    } else if (m[2] === '') this.inThink = true;
    else if (m[2] === '/' && this.inThink) {
      this.inThink = false;
      this.atStart = true;
    }
  }

  /** A stripped header (`assistantfinal`): the channel it opens. */
  private head(m: RegExpExecArray): void {
    this.channel = m[1] === 'final' ? 'reply' : 'thinking';
    this.atStart = true;
  }
}

/** Where a tail that may still become a stripped header (`assistantfi`) starts, or the length. */
function heldHead(s: string): number {
  for (let k = Math.max(0, s.length - LONGEST_HEAD + 1); k < s.length; k++)
    if (s[k] === 'a' && prefixOf(s.slice(k), STRIPPED_HEADS)) return k;
  return s.length;
}

/** What the stream brought beside the pieces: why it stopped, and whether the request asked for JSON. */
export interface ReplyEnd {
  finishReason?: FinishReason | undefined;
  json?: boolean | undefined;
}

/** A fenced block that is the whole text: its content; else the text. */
function unfenced(text: string): string {
  const m = /^```[a-zA-Z]*[^\S\n]*\n([\s\S]*?)\n?```$/.exec(text);
  return m ? (m[1] ?? '') : text;
}

/**
 * The reply a server put in the reasoning field, leaving the content empty (vLLM with thinking
 * disabled and a reasoning parser on, Ollama's JSON mode with some models): taken only when the
 * request asked for JSON, the server said it stopped by itself, and the whole reasoning text is
 * one JSON object or array (strictly: no prose around it). Thinking is never taken: prose in the
 * reasoning field stays thinking, however much it reads like an answer, and the reply stays empty.
 */
export function answerInReasoning(reasoning: string, end: ReplyEnd): string | undefined {
  if (!end.json || end.finishReason !== 'stop') return undefined;
  const text = unfenced(reasoning.trim()).trim();
  if (!/^[[{]/.test(text)) return undefined;
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === 'object' && v !== null ? text : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Reads a streamed reply piece by piece: content deltas (with inline `<think>` blocks and harmony
 * channels) and reasoning-field deltas, and tells `emit` which channel each visible piece belongs
 * to. The final split is `end()`, from the whole text.
 */
export class ReplyReader {
  private readonly content: string[] = [];
  private readonly reasoning: string[] = [];
  private readonly live: LiveView;

  constructor(private readonly emit?: (text: string, channel: ReplyChannel) => void) {
    this.live = new LiveView(emit);
  }

  /** A piece of `delta.reasoning` / `delta.reasoning_content` (or a VS Code thinking part). */
  addReasoning(piece: string): void {
    if (!piece) return;
    this.reasoning.push(piece);
    this.emit?.(piece, 'thinking');
  }

  /** A piece of `delta.content`. */
  addContent(piece: string): void {
    if (!piece) return;
    this.content.push(piece);
    this.live.add(piece);
  }

  /**
   * Everything read so far, split: the reasoning fields first, then inline thinking. With an empty
   * content, the reasoning field is the reply only as `answerInReasoning` allows (`fromReasoning`).
   */
  end(how: ReplyEnd = {}): ReadReply {
    this.live.flush();
    const inline = splitThinking(this.content.join(''));
    const reasoning = this.reasoning.join('').trim();
    if (!inline.reply && !inline.thinking && reasoning) {
      const taken = answerInReasoning(reasoning, how);
      if (taken !== undefined) return { thinking: '', reply: taken, fromReasoning: true };
    }
    const thinking = [reasoning, inline.thinking].filter(Boolean).join('\n\n');
    return { thinking, reply: inline.reply };
  }
}
