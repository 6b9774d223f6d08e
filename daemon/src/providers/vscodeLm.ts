/**
 * `vscode-lm` participants: the daemon cannot call VS Code's language models itself, so it asks
 * a connected VS Code window (the extension registers with `lm/register`) with one `lm/chat`
 * request, whose reply streams back as `$/progress` and ends with its answer (requestTypes.ts).
 * With it a VS Code user needs no API key at all.
 *
 * VS Code's stable API (1.100, @types/vscode) has no thinking part (`LanguageModelThinkingPart`
 * is proposed API only), so a model that thinks does it inline: the text goes through the same
 * ReplyReader as every other provider, here in the daemon, and `<think>` blocks become thinking.
 */
import type { LmChatResult, LmRequest, LmTool, ToolTurn } from '@roundtable/protocol';
import { RpcError } from '@roundtable/protocol';
import { echoed } from './toolCalls';
import { countPromptTokens, cutPiece, pieceTokens, toolTurnPromptTokens } from './tokens';
import { checkUsage, tokenCeiling, usageNote } from './usage';
import {
  ProviderError,
  type Asked,
  type ChatProvider,
  type ChatRequest,
  type ChatResult,
  type ToolLoop,
} from './types';
import { splitThinking } from './reply';
import { ReplyReader } from './replyReader';

/** The VS Code window's side: one `lm/chat` request, its pieces as progress, cancelled with `signal`. */
export interface LmAnswerer {
  chat(
    params: LmRequest,
    opts: { signal: AbortSignal; onProgress: (p: { text: string }) => void },
  ): Promise<LmChatResult>;
}

const WINDOW = 'the VS Code window answering for vscode-lm participants';

export class VscodeLmBridge implements ChatProvider {
  readonly id = 'vscode-lm';
  private readonly answerers: LmAnswerer[] = [];

  /** `log`: the daemon log, where a count replaced by ours is said. */
  constructor(private readonly log: (line: string) => void = () => undefined) {}

  /** True while a VS Code window answers vscode-lm calls (one per daemon: the server refuses a second). */
  answering(): boolean {
    return this.answerers.length > 0;
  }

  /** Calls in flight on a window that goes away fail there (its connection fails every call it waits on). */
  register(a: LmAnswerer): () => void {
    this.answerers.push(a);
    return () => {
      const i = this.answerers.indexOf(a);
      if (i >= 0) this.answerers.splice(i, 1);
    };
  }

  async chat(req: ChatRequest): Promise<ChatResult> {
    const loop = req.tools;
    if (!loop) return (await this.once(req, [], req.maxTokens, false)).result;
    // The model asked for workspace tools: run them and ask it again with the results, within the engine's bounds.
    return loop.turn(req.messages, (turns, o) => this.once(req, turns, o.maxTokens ?? req.maxTokens, o.offerTools));
  }

  /** One request: `turns` are the tool calls and their results so far in this turn. */
  private async once(req: ChatRequest, turns: ToolTurn[], maxTokens: number, offerTools: boolean): Promise<Asked> {
    const via = this.answerers[this.answerers.length - 1];
    if (!via) {
      throw new ProviderError(
        `no VS Code window is connected to answer for ${req.meta.participant} (vscode-lm): open VS Code with the Roundtable extension`,
        'unreachable',
      );
    }
    if (req.signal.aborted) throw new ProviderError('the call was aborted', 'aborted');
    const reply = new StreamedReply(req, turns, maxTokens, offerTools && (req.tools?.definitions().length ?? 0) > 0);
    // Aborted by the meeting (a cut, the turn timeout) or by our own count passing max_tokens: either way
    // the window hears `$/cancelRequest` and cancels the VS Code request.
    const stop = new AbortController();
    const onAbort = (): void => stop.abort();
    req.signal.addEventListener('abort', onAbort, { once: true });
    let answer: LmChatResult;
    try {
      answer = await via.chat(lmParams(req, turns, maxTokens, offerTools), {
        signal: stop.signal,
        onProgress: (p) => {
          if (!reply.add(p.text)) stop.abort();
        },
      });
    } catch (e) {
      if (reply.capped) answer = { ok: true, text: '' };
      else throw callError(e, req.signal.aborted);
    } finally {
      req.signal.removeEventListener('abort', onAbort);
    }
    if (!answer.ok) throw new ProviderError(answer.message, answer.kind);
    return reply.finish(answer, this.log);
  }
}

/** Why a call failed, for the meeting's record: aborted by the meeting, or the window's part. */
function callError(e: unknown, aborted: boolean): ProviderError {
  if (aborted) return new ProviderError('the call was aborted', 'aborted');
  if (!(e instanceof RpcError)) return new ProviderError(`${WINDOW} failed: ${(e as Error).message}`, 'server');
  if (e.code === 'closed') return new ProviderError(`${WINDOW} went away`, 'unreachable');
  if (e.code === 'cancelled') return new ProviderError(`${WINDOW} cancelled the call: ${e.message}`, 'unreachable');
  return new ProviderError(`${WINDOW}: ${e.message}`, 'server');
}

/** What the window is asked: the messages, the tools offered and this turn's tool steps so far. */
function lmParams(req: ChatRequest, turns: ToolTurn[], maxTokens: number, offerTools: boolean): LmRequest {
  return {
    model: req.model,
    messages: req.messages,
    maxTokens,
    json: req.json !== undefined,
    participant: req.meta.participant,
    ...(offerTools ? lmTools(req.tools) : {}),
    // Arguments past the cap are never sent back in full.
    ...(turns.length > 0
      ? { toolTurns: turns.map((t) => (t.kind === 'calls' ? { ...t, calls: t.calls.map(echoed) } : t)) }
      : {}),
  };
}

/** One call's reply as it streams in: read into reply and thinking, kept to max_tokens by our count. */
class StreamedReply {
  /** Tokens streamed so far by the engine's count, and whether they passed max_tokens. */
  private streamed = 0;
  capped = false;
  private text = '';
  private readonly reader: ReplyReader;

  constructor(
    private readonly req: ChatRequest,
    /** This turn's tool steps so far (sent with the request). */
    private readonly turns: ToolTurn[],
    /** `max_tokens` of this request (a tool turn's continuations are planned within its reservation). */
    private readonly maxTokens: number,
    /** Tools were offered with this request (only then are its tool calls taken). */
    private readonly offered: boolean,
  ) {
    this.reader = new ReplyReader(req.onDelta);
  }

  /** A streamed piece; false once it passed max_tokens (the model is stopped and the reply ends here). */
  add(text: string): boolean {
    if (this.capped) return false;
    if (!this.req.stopAtMaxTokens) {
      this.text += text;
      this.reader.addContent(text);
      return true;
    }
    const room = Math.max(0, this.maxTokens - this.streamed);
    const tokens = pieceTokens(text, room);
    const kept = tokens > room ? cutPiece(text, room) : text;
    this.streamed += tokens;
    this.text += kept;
    this.reader.addContent(kept);
    if (tokens > room) this.capped = true;
    return !this.capped;
  }

  /** The window's answer, with its usage checked where it enters as any server's is. */
  finish(d: Extract<LmChatResult, { ok: true }>, log: (line: string) => void): Asked {
    const { req, maxTokens } = this;
    // A whole text past max_tokens (a window that did not stream it) is kept to it, too.
    const hold = req.stopAtMaxTokens === true;
    const full =
      d.text && hold && pieceTokens(d.text, maxTokens) > maxTokens ? cutPiece(d.text, maxTokens) : d.text || this.text;
    const streamed = this.reader.end();
    const { thinking, reply } = full === this.text ? streamed : splitThinking(full);
    // The window's counts (VS Code's countTokens) are checked as any server's are.
    const said = d.promptTokens !== undefined || d.completionTokens !== undefined;
    const { usage, notes } = checkUsage(said ? { prompt: d.promptTokens, completion: d.completionTokens } : undefined, {
      promptTokens: () =>
        this.turns.length ? toolTurnPromptTokens(req.messages, this.turns, []) : countPromptTokens(req.messages),
      // The extension counts the whole text it got, thinking included.
      completionTokens: () => (this.capped ? maxTokens : pieceTokens(full)),
      reasoningTokens: thinking ? pieceTokens(thinking) : 0,
      promptCeiling: tokenCeiling([...req.messages.map((m) => m.content), ...this.turns.map((t) => JSON.stringify(t))]),
    });
    const note = usageNote('the VS Code window', req.model, notes);
    if (note) log(note);
    const result: ChatResult = {
      text: reply,
      ...(thinking ? { thinking } : {}),
      ...(this.capped ? { finishReason: 'length' as const } : {}),
      usage,
    };
    // Tool calls only count when tools were offered (the loop bounds how many are taken).
    return { result, calls: this.offered ? (d.toolCalls ?? []) : [] };
  }
}

/** The read-only tools of this call as VS Code's `LanguageModelChatTool`s: none once the turn's cap is reached. */
function lmTools(tools: ToolLoop | undefined): { tools?: LmTool[] } {
  const defs = tools?.definitions() ?? [];
  if (defs.length === 0) return {};
  return {
    tools: defs.map((d) => ({
      name: d.function.name,
      description: d.function.description,
      inputSchema: d.function.parameters,
    })),
  };
}
