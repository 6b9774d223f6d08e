/**
 * `vscode-lm` participants: the daemon cannot call VS Code's language models itself, so it asks
 * a connected VS Code window (the extension registers with `lm/register`) and the extension
 * streams the answer back. With it a VS Code user needs no API key at all.
 *
 * VS Code's stable API (1.100, @types/vscode) has no thinking part (`LanguageModelThinkingPart`
 * is proposed API only), so a model that thinks does it inline: the text goes through the same
 * ReplyReader as every other provider, here in the daemon, and `<think>` blocks become thinking.
 */
import { randomBytes } from 'node:crypto';
import type { DaemonRequests, LmRequest, LmTool, ToolTurn } from '@roundtable/protocol';
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

export interface LmAnswerer {
  /** Sends an `lm/request` or `lm/cancel` event to the extension. */
  request(r: LmRequest): void;
  cancel(requestId: string): void;
}

interface Pending {
  req: ChatRequest;
  /** `max_tokens` of this request (a tool turn's continuations are planned within its reservation). */
  maxTokens: number;
  /** Tools were offered with this request (only then are its tool calls taken). */
  offered: boolean;
  /** Tokens streamed so far by the engine's count, and whether they passed max_tokens. */
  streamed: number;
  capped?: boolean;
  /** This turn's tool steps so far (sent with the request). */
  turns: ToolTurn[];
  text: string;
  /** Reads the streamed text into reply and thinking. */
  reader: ReplyReader;
  resolve: (r: Asked) => void;
  reject: (e: Error) => void;
  via: LmAnswerer;
}

export class VscodeLmBridge implements ChatProvider {
  readonly id = 'vscode-lm';
  private readonly answerers: LmAnswerer[] = [];
  private readonly pending = new Map<string, Pending>();

  /** `log`: the daemon log, where a count replaced by ours is said. */
  constructor(private readonly log: (line: string) => void = () => undefined) {}

  /** True while a VS Code window answers vscode-lm calls (one per daemon: the server refuses a second). */
  answering(): boolean {
    return this.answerers.length > 0;
  }

  register(a: LmAnswerer): () => void {
    this.answerers.push(a);
    return () => {
      const i = this.answerers.indexOf(a);
      if (i >= 0) this.answerers.splice(i, 1);
      for (const [id, p] of this.pending) {
        if (p.via === a) {
          this.pending.delete(id);
          p.reject(
            new ProviderError('the VS Code window answering for vscode-lm participants went away', 'unreachable'),
          );
        }
      }
    };
  }

  async chat(req: ChatRequest): Promise<ChatResult> {
    const loop = req.tools;
    if (!loop) return (await this.once(req, [], req.maxTokens, false)).result;
    // The model asked for workspace tools: run them and ask it again with the results, within the engine's bounds.
    return loop.turn(req.messages, (turns, o) => this.once(req, turns, o.maxTokens ?? req.maxTokens, o.offerTools));
  }

  /** One request: `turns` are the tool calls and their results so far in this turn. */
  private once(req: ChatRequest, turns: ToolTurn[], maxTokens: number, offerTools: boolean): Promise<Asked> {
    const via = this.answerers[this.answerers.length - 1];
    if (!via) {
      return Promise.reject(
        new ProviderError(
          `no VS Code window is connected to answer for ${req.meta.participant} (vscode-lm): open VS Code with the Roundtable extension`,
          'unreachable',
        ),
      );
    }
    const requestId = randomBytes(8).toString('hex');
    return new Promise<Asked>((resolve, reject) => {
      if (req.signal.aborted) return reject(new ProviderError('the call was aborted', 'aborted'));
      const onAbort = (): void => {
        if (!this.pending.delete(requestId)) return;
        via.cancel(requestId);
        reject(new ProviderError('the call was aborted', 'aborted'));
      };
      req.signal.addEventListener('abort', onAbort, { once: true });
      this.pending.set(requestId, {
        req,
        maxTokens,
        offered: offerTools && (req.tools?.definitions().length ?? 0) > 0,
        streamed: 0,
        turns,
        text: '',
        reader: new ReplyReader(req.onDelta),
        via,
        resolve: (r) => {
          req.signal.removeEventListener('abort', onAbort);
          resolve(r);
        },
        reject: (e) => {
          req.signal.removeEventListener('abort', onAbort);
          reject(e);
        },
      });
      via.request({
        requestId,
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
      });
    });
  }

  delta(requestId: string, text: string): void {
    const p = this.pending.get(requestId);
    if (!p) return;
    if (!p.req.stopAtMaxTokens) {
      p.text += text;
      p.reader.addContent(text);
      return;
    }
    const room = Math.max(0, p.maxTokens - p.streamed);
    const tokens = pieceTokens(text, room);
    const kept = tokens > room ? cutPiece(text, room) : text;
    p.streamed += tokens;
    p.text += kept;
    p.reader.addContent(kept);
    if (tokens > room) {
      // Past max_tokens by our count: the model is stopped and the reply ends here.
      p.capped = true;
      p.via.cancel(requestId);
      this.done({ requestId, text: '' });
    }
  }

  done(d: DaemonRequests['lm/done'][0]): void {
    const p = this.pending.get(d.requestId);
    if (!p) return;
    this.pending.delete(d.requestId);
    // A whole text past max_tokens (a window that did not stream it) is kept to it, too.
    const hold = p.req.stopAtMaxTokens === true;
    const full =
      d.text && hold && pieceTokens(d.text, p.maxTokens) > p.maxTokens
        ? cutPiece(d.text, p.maxTokens)
        : d.text || p.text;
    const streamed = p.reader.end();
    const { thinking, reply } = full === p.text ? streamed : splitThinking(full);
    // The window's counts (VS Code's countTokens) are checked as any server's are.
    const said = d.promptTokens !== undefined || d.completionTokens !== undefined;
    const { usage, notes } = checkUsage(said ? { prompt: d.promptTokens, completion: d.completionTokens } : undefined, {
      promptTokens: () =>
        p.turns.length ? toolTurnPromptTokens(p.req.messages, p.turns, []) : countPromptTokens(p.req.messages),
      // The extension counts the whole text it got, thinking included.
      completionTokens: () => (p.capped ? p.maxTokens : pieceTokens(full)),
      reasoningTokens: thinking ? pieceTokens(thinking) : 0,
      promptCeiling: tokenCeiling([...p.req.messages.map((m) => m.content), ...p.turns.map((t) => JSON.stringify(t))]),
    });
    const note = usageNote('the VS Code window', p.req.model, notes);
    if (note) this.log(note);
    const result: ChatResult = {
      text: reply,
      ...(thinking ? { thinking } : {}),
      ...(p.capped ? { finishReason: 'length' as const } : {}),
      usage,
    };
    // Tool calls only count when tools were offered (the loop bounds how many are taken).
    p.resolve({ result, calls: p.offered ? (d.toolCalls ?? []) : [] });
  }

  fail(requestId: string, message: string, kind: ProviderError['kind']): void {
    const p = this.pending.get(requestId);
    if (!p) return;
    this.pending.delete(requestId);
    p.reject(new ProviderError(message, kind));
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
