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

/**
 * The reading of one whole content, built as it goes (no object per token): the reply's parts,
 * the thoughts finished so far, the thought being read, and the state tags leave.
 */
class Split {
  readonly reply: string[] = [];
  readonly thoughts: string[] = [];
  private cur: string[] = [];
  /** Some reply text that is not white space has been read. */
  private replied = false;
  inThink = false;
  private sawThinkTag = false;
  /** An opener not yet closed: its tag, and where its thought starts (undone if the reply ends in it after reply text). */
  private opener: { at: number; from: number; replied: boolean } | undefined;
  private channel: ReplyChannel = 'reply';
  private header: string | undefined;
  harmony = false;

  private get thinking(): boolean {
    return this.inThink || this.channel === 'thinking';
  }

  add(text: string): void {
    if (!text) return;
    if (this.header !== undefined) {
      if (this.header.length < MAX_HEADER) this.header += text.slice(0, MAX_HEADER);
    } else if (this.thinking) this.cur.push(text);
    else {
      this.reply.push(text);
      if (!this.replied && text.trim()) this.replied = true;
    }
  }

  /** A change of channel: the thought being read, if it ended, is finished. */
  private moved(wasThinking: boolean): void {
    if (!wasThinking || this.thinking) return;
    const t = this.cur.join('').trim();
    if (t) this.thoughts.push(t);
    this.cur = [];
  }

  /** A think tag; `at` is where it starts in the content. */
  think(close: boolean, at: number): void {
    const was = this.thinking;
    if (!close) {
      if (!this.inThink) this.opener = { at, from: this.cur.length, replied: this.replied };
      this.inThink = true;
    } else if (this.inThink) {
      this.inThink = false;
      this.opener = undefined;
    } else if (!this.sawThinkTag) {
      // A close with no opener before it: the chat template opened the block.
      const t = this.reply.join('').trim();
      if (t) this.thoughts.unshift(t);
      this.reply.length = 0;
      this.replied = false;
    }
    this.sawThinkTag = true;
    this.moved(was);
  }

  /** A `<|word|>` token: harmony's headers and message ends, else a leaked template token, dropped. */
  special(word: string): void {
    const was = this.thinking;
    if (word === 'channel' || word === 'start') {
      // `assistant<|channel|>final…` with the `<|start|>` before the role stripped: the role is no text.
      if (word === 'channel' && this.header === undefined) this.dropRole();
      this.harmony = true;
      this.header = '';
    } else if (word === 'message') {
      if (this.header !== undefined) this.channel = channelOf(this.header);
      this.header = undefined;
    } else if (END_OF_MESSAGE.has(word) && this.harmony) {
      this.header = undefined;
      this.channel = 'reply';
    }
    this.moved(was);
  }

  /** A role word the last reply part ends with (`…assistant` before a harmony header), dropped. */
  private dropRole(): void {
    const last = this.reply.length - 1;
    const text = this.reply[last];
    if (text !== undefined && /(?:^|\s)assistant\s*$/.test(text.slice(-24)))
      this.reply[last] = text.slice(0, text.lastIndexOf('assistant'));
  }

  /** The end: an opener still open after reply text is literal text, as written ("Reply, then <think> half"). */
  finish(content: string): void {
    const o = this.opener;
    if (this.inThink && o?.replied) {
      this.reply.push(content.slice(o.at));
      this.cur.length = o.from;
    }
    this.inThink = false;
    this.channel = 'reply';
    this.moved(true);
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
    else if (m[2] !== undefined) s.think(m[2] === '/', m.index);
    if (word === 'im_start' || word === 'start_header_id' || m[3] !== undefined) {
      ROLE.lastIndex = pos;
      if (ROLE.test(text)) pos = ROLE.lastIndex;
      re.lastIndex = pos;
    }
  }
  s.add(text.slice(pos));
  s.finish(text);
  return s;
}

/** `analysis…` as gpt-oss writes it with harmony's special tokens stripped: lower-case, glued to the next word. */
const STRIPPED_START = /^\s*(?:assistant)?analysis(?=[^\s\w]|[A-Z])/;
/**
 * `assistantfinal` glued to what comes before it (`…Let's produce final output.assistantfinalApplied…`)
 * or at the very start: gpt-oss's stripped tokens even when the leading `analysis` was lost; a
 * writer quoting the word sets it apart with a space or a quote.
 */
const GLUED_FINAL = /(?:^\s*|[^\s`'"])assistantfinal/;
/** The stripped header of the next message: `assistantfinal`, `assistantanalysis`, `assistantcommentary`. */
const STRIPPED_NEXT = /assistant(final|analysis|commentary)/g;

/**
 * gpt-oss with the special tokens stripped (`analysisThe user asks…assistantfinalHello!`): the
 * analysis and commentary go to `thoughts`, what follows `assistantfinal` is the reply returned.
 * Undefined when the text does not start that way nor holds a glued `assistantfinal`.
 */
function strippedHarmony(text: string, thoughts: string[]): string | undefined {
  const start = STRIPPED_START.exec(text);
  if (!start && !GLUED_FINAL.test(text)) return undefined;
  const reply: string[] = [];
  let channel: ReplyChannel = 'thinking';
  let pos = start ? start[0].length : 0;
  const put = (t: string) => {
    if (channel === 'reply') reply.push(t);
    else if (t.trim()) thoughts.push(t.trim());
  };
  const re = new RegExp(STRIPPED_NEXT.source, 'g');
  for (let m = re.exec(text); m; m = re.exec(text)) {
    put(text.slice(pos, m.index));
    channel = m[1] === 'final' ? 'reply' : 'thinking';
    pos = m.index + m[0].length;
  }
  put(text.slice(pos));
  return reply.join('');
}

/**
 * Splits a whole reply's content into thinking and reply, leaked template tokens dropped, in one
 * pass (see `readTokens`); gpt-oss harmony channels, with their tokens or stripped of them, go
 * by channel: `final` is the reply, `analysis` and `commentary` are thinking.
 */
export function splitThinking(content: string): ReadReply {
  const read = readTokens(content);
  const reply = read.reply.join('');
  const thoughts = read.thoughts;
  // Think blocks first, then the stripped channels at the start of what is left.
  const final = (read.harmony ? undefined : strippedHarmony(reply, thoughts)) ?? reply;
  return { thinking: thoughts.join('\n\n'), reply: final.trim() };
}
