/**
 * TEST ONLY: stub chat models for launching the extension in code-server, where no Copilot exists
 * and VS Code 1.100 cannot register a chat model provider without proposed API. Enabled only when
 * the environment names them at activation:
 *
 *   ROUNDTABLE_TEST_LM_MODELS='[{"id":"stub-a","family":"alpha"},{"id":"stub-b","family":"beta"}]'
 *   ROUNDTABLE_TEST_LM_CALLS=/tmp/calls.jsonl   (optional: one JSON line per call, for the test to read)
 *
 * The stubs answer through a small scripted responder, and everything else (the picker, the
 * preflight, the LmBridge that answers the daemon's vscode-lm calls) runs the normal code.
 */
import { appendFileSync } from 'node:fs';
import * as vscode from 'vscode';
import { stanceMarker } from '@roundtable/protocol/stance';
import type { ChatModel, ModelSource } from './chatModel';

const AGREE = stanceMarker('AGREE');

export const STUB_MODELS_ENV = 'ROUNDTABLE_TEST_LM_MODELS';
export const STUB_CALLS_ENV = 'ROUNDTABLE_TEST_LM_CALLS';
export const STUB_VENDOR = 'roundtable-test-stub';

interface StubSpec {
  id: string;
  family: string;
  name?: string;
  /** false = the user refused Roundtable access to this model (tests the consent preflight). */
  allowed?: boolean;
  /** true = when offered `read_file`, a worker's turn first reads README.md (tests vscode.lm tools). */
  tools?: boolean;
}

function parseSpecs(raw: string): StubSpec[] {
  const v: unknown = JSON.parse(raw);
  if (!Array.isArray(v)) throw new Error(`${STUB_MODELS_ENV} must be a JSON array`);
  return v.map((s: unknown, i) => {
    const o = s as Partial<StubSpec>;
    if (typeof o?.id !== 'string' || typeof o.family !== 'string')
      throw new Error(`${STUB_MODELS_ENV}[${i}] needs string "id" and "family"`);
    return {
      id: o.id,
      family: o.family,
      ...(o.name ? { name: o.name } : {}),
      ...(o.allowed === false ? { allowed: false } : {}),
      ...(o.tools === true ? { tools: true } : {}),
    };
  });
}

function textOf(messages: vscode.LanguageModelChatMessage[]): string {
  return messages
    .flatMap((m) => m.content)
    .map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : ''))
    .join('\n');
}

/** The scripted responder: agrees in one round, and answers the digest in its format. */
export function stubReply(model: StubSpec, prompt: string): string {
  const who = `${model.id} (${model.family})`;
  if (prompt.includes('CONSENSUS_STATEMENT'))
    return `CONSENSUS_STATEMENT: The stub panel agreed, speaking through ${who}.\nCONTRIBUTORS: every worker agreed.`;
  if (prompt.includes(AGREE))
    return `Stub model ${who} has weighed the question and supports going ahead carefully.\n${AGREE}`;
  return `Stub model ${who} notes the discussion so far.`;
}

/** What tool results the messages carry (a model is asked again with them). */
function toolResultsOf(messages: vscode.LanguageModelChatMessage[]): string[] {
  return messages
    .flatMap((m) => m.content)
    .filter((p): p is vscode.LanguageModelToolResultPart => p instanceof vscode.LanguageModelToolResultPart)
    .map((p) => p.content.map((c) => (c instanceof vscode.LanguageModelTextPart ? c.value : '')).join(''));
}

/** The parts of a reply, streamed as a real model's are: word-sized text pieces, or tool calls. */
function streamOf(parts: unknown[]): AsyncIterable<unknown> {
  return {
    [Symbol.asyncIterator]: () => {
      let i = 0;
      return {
        next: (): Promise<IteratorResult<unknown>> =>
          Promise.resolve(i < parts.length ? { value: parts[i++], done: false } : { value: undefined, done: true }),
      };
    },
  };
}

function textParts(reply: string): vscode.LanguageModelTextPart[] {
  return (reply.match(/\S+\s*|\s+/g) ?? []).map((piece) => new vscode.LanguageModelTextPart(piece));
}

/**
 * A tool-using stub's worker turn: it asks for README.md when offered `read_file`, then answers
 * quoting the first line of the file it was given back.
 */
function toolTurn(
  spec: StubSpec,
  prompt: string,
  messages: vscode.LanguageModelChatMessage[],
  options: vscode.LanguageModelChatRequestOptions,
): unknown[] | undefined {
  if (!spec.tools || !prompt.includes(AGREE)) return undefined;
  const results = toolResultsOf(messages);
  if (results.length === 0 && options.tools?.some((t) => t.name === 'read_file'))
    return [new vscode.LanguageModelToolCallPart(`stub-${spec.id}-1`, 'read_file', { path: 'README.md' })];
  if (results.length === 0) return undefined;
  const first =
    (results.at(-1) ?? '')
      .split('\n')
      // Tool results come back enveloped: a header, then every line quoted with `| `.
      .map((l) => l.replace(/^\| /, ''))
      .find((l) => /^\d+: /.test(l))
      ?.slice(0, 120) ?? '';
  return textParts(`Stub model ${spec.id} read README.md, which says “${first}”.\n${AGREE}`);
}

function stubModel(spec: StubSpec, callsFile: string | undefined): ChatModel {
  return {
    id: spec.id,
    family: spec.family,
    vendor: STUB_VENDOR,
    name: spec.name ?? spec.id,
    sendRequest: (messages, options) => {
      const prompt = textOf(messages);
      const parts = toolTurn(spec, prompt, messages, options) ?? textParts(stubReply(spec, prompt));
      if (callsFile) {
        const line = {
          model: spec.id,
          promptChars: prompt.length,
          tools: options.tools?.map((t) => t.name) ?? [],
          toolResults: toolResultsOf(messages),
        };
        appendFileSync(callsFile, `${JSON.stringify(line)}\n`);
      }
      return Promise.resolve({ stream: streamOf(parts) });
    },
    countTokens: (text) => Promise.resolve(Math.ceil(text.length / 4)),
  };
}

/** The stub source when the test environment asks for one; undefined on every normal launch. */
export function stubModelSourceFromEnv(env: NodeJS.ProcessEnv, log: vscode.LogOutputChannel): ModelSource | undefined {
  const raw = env[STUB_MODELS_ENV];
  if (!raw) return undefined;
  const specs = parseSpecs(raw);
  const models = specs.map((s) => stubModel(s, env[STUB_CALLS_ENV]));
  log.warn(`TEST MODE: ${specs.length} stub chat model(s) from ${STUB_MODELS_ENV} replace vscode.lm`);
  const matches = (m: ChatModel, sel: vscode.LanguageModelChatSelector = {}): boolean =>
    (sel.id === undefined || sel.id === m.id) &&
    (sel.family === undefined || sel.family === m.family) &&
    (sel.vendor === undefined || sel.vendor === m.vendor);
  return {
    label: 'Test stub',
    select: (selector) => Promise.resolve(models.filter((m) => matches(m, selector))),
    canSendRequest: (m) => (specs.find((s) => s.id === m.id)?.allowed === false ? false : true),
  };
}
