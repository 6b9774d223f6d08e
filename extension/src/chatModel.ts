/**
 * What the extension asks of a chat model and of the place its models come from: `vscode.lm`
 * (modelSource.ts) or, in tests, the stub models (testStubModels.ts). Both implement these.
 */
import type * as vscode from 'vscode';

/** The part of `vscode.LanguageModelChat` Roundtable uses (a real one satisfies it). */
export interface ChatModel {
  readonly id: string;
  readonly family: string;
  readonly vendor: string;
  readonly name: string;
  sendRequest(
    messages: vscode.LanguageModelChatMessage[],
    options: vscode.LanguageModelChatRequestOptions,
    token: vscode.CancellationToken,
  ): Thenable<{ stream: AsyncIterable<unknown> }>;
  countTokens(text: string, token?: vscode.CancellationToken): Thenable<number>;
}

export interface ModelSource {
  /** The models matching `selector` (all of them without one). */
  select(selector?: vscode.LanguageModelChatSelector): Promise<ChatModel[]>;
  /** Whether the user allowed Roundtable to use `model`: false = refused, undefined = not asked yet. */
  canSendRequest(model: ChatModel): boolean | undefined;
  /** How the models are named in the picker when their vendor has no friendlier name. */
  readonly label: string;
}
