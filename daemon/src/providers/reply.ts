/**
 * The one reader of what comes back from a model: a raw reply becomes its thinking and its reply.
 * Reasoning models think in four ways: inline `<think>…</think>` at the start of the content
 * (DeepSeek-R1 and Qwen3 on servers without a reasoning parser; also an unclosed leading block, a
 * closing tag whose opening one was in the chat template, and an empty `<think></think>`); in a
 * separate field of the streamed delta (`reasoning` on Ollama and newer vLLM, `reasoning_content`
 * on DeepSeek's API and older vLLM); or, for gpt-oss served without harmony parsing, in harmony
 * channels (`<|channel|>analysis<|message|>…<|end|><|start|>assistant<|channel|>final<|message|>…`,
 * or the same with the special tokens stripped: `analysis…assistantfinal…`). Only the reply is
 * spoken, posted, parsed and summarised; thinking is billed and shown folded.
 *
 * Every reader here is one pass over its input: a reply of a megabyte of `<think>` openers or of
 * `</s>` runs costs what a megabyte of prose costs.
 */

/** Which part of a reply a streamed piece belongs to. */
export type ReplyChannel = 'reply' | 'thinking';

/** Why the server stopped: `length` = the token cap ran out. */
export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'other';

export interface ReadReply {
  thinking: string;
  reply: string;
  /** Set when the content was empty and the reply was taken from the reasoning field (see `answerInReasoning`). */
  fromReasoning?: true;
}

/**
 * The tokens the reader acts on, each of bounded length (no backtracking beyond it): any
 * `<|word|>` (Llama's `<|eot_id|>`, Qwen's `<|im_end|>`, Phi's `<|end|>`, GPT-2's `<|endoftext|>`,
 * harmony's `<|channel|>`, `<|message|>`, `<|start|>`, `<|end|>`, `<|return|>`, `<|call|>`,
 * `<|constrain|>`), the think tags, Gemma's `<start_of_turn>` / `<end_of_turn>` / `<eos>` and
 * Command-R's `<BOS_TOKEN>` / `<EOS_TOKEN>`.
 */
const TOKEN =
  /<\|([a-z][a-z0-9_]{0,40})\|>|<(\/?)think(?:ing)?>|<(start_of_turn)>|<end_of_turn>|<eos>|<[BE]OS_TOKEN>/gi;
/** The role word a template writes after `<|im_start|>`, `<|start_header_id|>` or `<start_of_turn>`. */
const ROLE = /[^\S\n]{0,8}(?:system|user|assistant|model)/iy;
/** Harmony tokens that end a message. */
const END_OF_MESSAGE = new Set(['end', 'return', 'call']);
/** A harmony header longer than this is not kept whole (the channel name is at its start). */
const MAX_HEADER = 256;

/** A harmony header (`final`, `analysis`, `commentary to=functions.x json`) read as a channel. */
function channelOf(header: string): ReplyChannel {
  const name = /^\s*(\w+)/.exec(header)?.[1]?.toLowerCase();
  return name === 'analysis' || name === 'commentary' ? 'thinking' : 'reply';
}

/** Where a run of trailing sentence-piece `</s>` end tokens (and the space between) starts, or the length. */
function endBeforeEos(text: string): number {
  let end = text.length;
  for (let at = end; ;) {
    while (at > 0 && /\s/.test(text[at - 1] as string)) at--;
    if (at < 4 || text.slice(at - 4, at).toLowerCase() !== '</s>') return end;
    at -= 4;
    end = at;
  }
}

interface Piece {
  text: string;
  channel: ReplyChannel;
}

/** The reading of one whole content: where each piece goes, and the state a think tag leaves. */
class Split {
  readonly pieces: Piece[] = [];
  inThink = false;
  sawThinkTag = false;
  /** The piece index and tag of an opener not yet closed (undone if the reply ends in it after reply text). */
  opener: { at: number; tag: string } | undefined;
  channel: ReplyChannel = 'reply';
  header: string | undefined;
  harmony = false;

  add(text: string): void {
    if (!text) return;
    if (this.header !== undefined) {
      if (this.header.length < MAX_HEADER) this.header += text.slice(0, MAX_HEADER);
      return;
    }
    this.pieces.push({ text, channel: this.inThink ? 'thinking' : this.channel });
  }

  think(close: boolean, tag: string): void {
    if (!close) {
      if (!this.inThink) this.opener = { at: this.pieces.length, tag };
      this.inThink = true;
    } else if (this.inThink) {
      this.inThink = false;
      this.opener = undefined;
    } else if (!this.sawThinkTag) {
      // A close with no opener before it: the chat template opened the block.
      for (const p of this.pieces) p.channel = 'thinking';
    }
    this.sawThinkTag = true;
  }

  /** A `<|word|>` token: harmony's headers and message ends, else a leaked template token, dropped. */
  special(word: string): void {
    if (word === 'channel' || word === 'start') {
      this.harmony = true;
      this.header = '';
    } else if (word === 'message') {
      if (this.header !== undefined) this.channel = channelOf(this.header);
      this.header = undefined;
    } else if (END_OF_MESSAGE.has(word) && this.harmony) {
      this.header = undefined;
      this.channel = 'reply';
    }
  }

  /** An opener still open at the end after reply text is literal text ("Reply, then <think> half"). */
  finish(): void {
    if (!this.inThink || !this.opener) return;
    const before = this.pieces.slice(0, this.opener.at);
    if (before.every((p) => p.channel === 'thinking' || p.text.trim() === '')) return;
    const rest = this.pieces.splice(this.opener.at);
    this.pieces.push({ text: this.opener.tag + rest.map((p) => p.text).join(''), channel: 'reply' });
  }
}

/**
 * The content read token by token (TOKEN), in one pass: think blocks, harmony channels and leaked
 * template tokens. A `</think>` with no opening tag before it closes thinking that began in the
 * template; complete blocks anywhere are thinking; a leading `<think>` never closed is all thinking
 * (the cap ran out while thinking). Repeated openers inside a block are dropped; the first close ends it.
 */
function readTokens(content: string): Split {
  const text = content.slice(0, endBeforeEos(content));
  const s = new Split();
  let pos = 0;
  const re = new RegExp(TOKEN.source, 'gi');
  for (let m = re.exec(text); m; m = re.exec(text)) {
    s.add(text.slice(pos, m.index));
    pos = m.index + m[0].length;
    const word = m[1]?.toLowerCase();
    if (word !== undefined) s.special(word);
    else if (m[2] !== undefined) s.think(m[2] === '/', m[0]);
    if (word === 'im_start' || word === 'start_header_id' || m[3] !== undefined) {
      ROLE.lastIndex = pos;
      if (ROLE.test(text)) pos = ROLE.lastIndex;
      re.lastIndex = pos;
    }
  }
  s.add(text.slice(pos));
  s.finish();
  return s;
}

/** `analysis…` as gpt-oss writes it with harmony's special tokens stripped: lower-case, glued to the next word. */
const STRIPPED_START = /^\s*(?:assistant)?analysis(?=[^\s\w]|[A-Z])/;
/** The stripped header of the next message: `assistantfinal`, `assistantanalysis`, `assistantcommentary`. */
const STRIPPED_NEXT = /assistant(final|analysis|commentary)/g;

/**
 * gpt-oss with the special tokens stripped (`analysisThe user asks…assistantfinalHello!`): the
 * analysis and commentary are thinking, what follows `assistantfinal` the reply. Undefined when the
 * text does not start that way.
 */
function strippedHarmony(text: string): Piece[] | undefined {
  const start = STRIPPED_START.exec(text);
  if (!start) return undefined;
  const pieces: Piece[] = [];
  let channel: ReplyChannel = 'thinking';
  let pos = start[0].length;
  const re = new RegExp(STRIPPED_NEXT.source, 'g');
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (m.index < pos) continue;
    pieces.push({ text: text.slice(pos, m.index), channel });
    channel = m[1] === 'final' ? 'reply' : 'thinking';
    pos = m.index + m[0].length;
  }
  pieces.push({ text: text.slice(pos), channel });
  return pieces;
}

/** Pieces joined by channel: each thought trimmed and set apart, the reply as one text. */
function joined(pieces: Piece[]): ReadReply {
  const thoughts = pieces.filter((p) => p.channel === 'thinking').map((p) => p.text.trim());
  return {
    thinking: thoughts.filter(Boolean).join('\n\n'),
    reply: pieces
      .filter((p) => p.channel === 'reply')
      .map((p) => p.text)
      .join('')
      .trim(),
  };
}

/**
 * Splits a whole reply's content into thinking and reply, leaked template tokens dropped, in one
 * pass (see `readTokens`); gpt-oss harmony channels, with their tokens or stripped of them, go
 * by channel: `final` is the reply, `analysis` and `commentary` are thinking.
 */
export function splitThinking(content: string): ReadReply {
  const read = readTokens(content);
  if (read.harmony) return joined(read.pieces);
  // Think blocks first, then stripped channels at the start of the reply.
  const first = read.pieces.findIndex((p) => p.channel === 'reply' && p.text.trim() !== '');
  const stripped = first === -1 ? undefined : strippedHarmony((read.pieces[first] as Piece).text);
  if (!stripped) return joined(read.pieces);
  return joined([...read.pieces.slice(0, first), ...stripped, ...read.pieces.slice(first + 1)]);
}
