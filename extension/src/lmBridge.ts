/**
 * Answers the daemon's `vscode-lm` calls (`lm/chat` requests) with VS Code's own language models
 * (Copilot and any other provider registered through `vscode.lm`), streaming the reply back as
 * progress. No API key needed.
 */
import * as vscode from 'vscode';
import type { LmChatProgress, LmChatResult, LmRequest, ServeContext, ToolCall, ToolTurn } from '@roundtable/protocol';
import { RpcError } from '@roundtable/protocol';
import type { DaemonLink } from './daemonLink';
import type { ModelSource } from './chatModel';
import { findModel } from './modelSource';

type FailKind = 'unreachable' | 'auth' | 'rate_limited' | 'server' | 'bad_request';

/** A clear message for each way a VS Code model call can fail. */
export function explainLmError(e: unknown, model: string): { message: string; kind: FailKind } {
  if (e instanceof vscode.LanguageModelError) {
    if (e.code === vscode.LanguageModelError.NoPermissions.name) {
      return {
        message: `Roundtable may not use the model "${model}": allow it when VS Code asks (or in the Accounts menu)`,
        kind: 'auth',
      };
    }
    if (e.code === vscode.LanguageModelError.NotFound.name)
      return { message: `the language model "${model}" is not available in VS Code`, kind: 'unreachable' };
    if (e.code === vscode.LanguageModelError.Blocked.name || /quota|rate/i.test(e.message)) {
      return {
        message: `the language model "${model}" refused the request (quota or rate limit): ${e.message}`,
        kind: 'rate_limited',
      };
    }
    return { message: `the language model "${model}" failed: ${e.message}`, kind: 'server' };
  }
  return { message: `the language model "${model}" failed: ${(e as Error)?.message ?? String(e)}`, kind: 'server' };
}

export class LmBridge implements vscode.Disposable {
  /** The VS Code requests in flight, cancelled when the window closes. */
  private readonly inFlight = new Set<vscode.CancellationTokenSource>();

  constructor(
    private readonly link: DaemonLink,
    private readonly log: vscode.LogOutputChannel,
    /** `vscode.lm`, or the stub models of a test launch (modelSource.ts). */
    private readonly source: ModelSource,
  ) {}

  /**
   * One `lm/chat` from the daemon: the VS Code request, its text streamed back as progress, then
   * the reply. The daemon's `$/cancelRequest` cancels the VS Code request; the window closing
   * answers `cancelled`, so the daemon's call fails at once.
   */
  private async answer(r: LmRequest, call: ServeContext<LmChatProgress>): Promise<LmChatResult> {
    const cts = new vscode.CancellationTokenSource();
    this.inFlight.add(cts);
    const off = call.token.onCancellationRequested(() => cts.cancel());
    try {
      const model = await findModel(this.source, r.model);
      if (!model) {
        return {
          ok: false,
          message: `no VS Code language model matches "${r.model}" (is GitHub Copilot or another model provider installed and signed in?)`,
          kind: 'unreachable',
        };
      }
      const response = await model.sendRequest(
        [...r.messages.map(lmMessage), ...(r.toolTurns ?? []).map(lmToolTurn)],
        {
          justification: `Roundtable: ${r.participant} speaks in a meeting you started`,
          ...(r.tools?.length ? { tools: r.tools } : {}),
        },
        cts.token,
      );
      let text = '';
      const toolCalls: ToolCall[] = [];
      for await (const part of response.stream) {
        if (part instanceof vscode.LanguageModelTextPart) {
          text += part.value;
          if (part.value) call.progress({ text: part.value });
        } else if (part instanceof vscode.LanguageModelToolCallPart && r.tools?.length) {
          toolCalls.push({ id: part.callId, name: part.name, arguments: JSON.stringify(part.input ?? {}) });
        }
      }
      const sent = [...r.messages.map((m) => m.content), ...(r.toolTurns ?? []).map(toolTurnText)];
      const promptTokens = (await Promise.all(sent.map((t) => model.countTokens(t)))).reduce((a, b) => a + b, 0);
      return {
        ok: true,
        text,
        promptTokens,
        completionTokens: await model.countTokens(text),
        ...(toolCalls.length > 0 ? { toolCalls } : {}),
      };
    } catch (e) {
      // Cancelled by the daemon (answered `cancelled` for it) or by this window closing.
      if (cts.token.isCancellationRequested) throw new RpcError('cancelled', 'the VS Code window is closing');
      const { message, kind } = explainLmError(e, r.model);
      this.log.warn(message);
      return { ok: false, message, kind };
    } finally {
      off();
      this.inFlight.delete(cts);
      cts.dispose();
    }
  }

  /** Tells the daemon this window answers vscode-lm calls, with the models it can see. */
  async register(): Promise<void> {
    // Register even when no model is available yet: calls then fail with a message that says so.
    const models = await this.source.select().then(
      (m) => m,
      (e: unknown) => {
        this.log.warn(`could not list VS Code language models: ${(e as Error).message}`);
        return [];
      },
    );
    try {
      // Answered on this connection (a reconnection is a new one, registered again).
      const rpc = await this.link.client();
      rpc.handle('lm/chat', (r, call) => this.answer(r, call));
      await rpc.request('lm/register', { models: models.map((m) => m.id), answers: ['lm/chat'] });
    } catch (e) {
      // One window answers vscode-lm calls per daemon; another one already does.
      if (e instanceof RpcError && e.code === 'conflict') {
        this.log.warn(e.message);
        void vscode.window.showWarningMessage(`Roundtable: this window does not answer vscode-lm calls: ${e.message}`);
        return;
      }
      throw e;
    }
    this.log.info(`answering vscode-lm calls (${models.length} model(s) available)`);
  }

  dispose(): void {
    for (const c of this.inFlight) c.cancel();
  }
}

/** The chat API has no system role: the system prompt goes first as a user message. */
function lmMessage(m: LmRequest['messages'][number]): vscode.LanguageModelChatMessage {
  return m.role === 'assistant'
    ? vscode.LanguageModelChatMessage.Assistant(m.content)
    : vscode.LanguageModelChatMessage.User(m.content);
}

/** A tool step of the turn: the model's calls as its own message, each result as a user's. */
function lmToolTurn(t: ToolTurn): vscode.LanguageModelChatMessage {
  if (t.kind === 'result') {
    return vscode.LanguageModelChatMessage.User([
      new vscode.LanguageModelToolResultPart(t.callId, [new vscode.LanguageModelTextPart(t.text)]),
    ]);
  }
  return vscode.LanguageModelChatMessage.Assistant([
    ...(t.text ? [new vscode.LanguageModelTextPart(t.text)] : []),
    ...t.calls.map((c) => new vscode.LanguageModelToolCallPart(c.id, c.name, toolInput(c.arguments))),
  ]);
}

function toolTurnText(t: ToolTurn): string {
  return t.kind === 'result' ? t.text : `${t.text}\n${t.calls.map((c) => `${c.name}(${c.arguments})`).join('\n')}`;
}

/** The arguments a model wrote, as the object VS Code's tool call part holds (a broken one as `{}`). */
function toolInput(json: string): object {
  try {
    const v: unknown = JSON.parse(json);
    return v && typeof v === 'object' && !Array.isArray(v) ? v : {};
  } catch {
    return {};
  }
}
