/**
 * Requests as typed values, in both directions. Each request names its direction, its params,
 * its result and, when it streams, the shape of its progress; the two generic notifications
 * `$/cancelRequest` and `$/progress` carry cancellation and progress for any of them, either way.
 *
 * Modelled on LSP: vscode-languageserver-node declares each request as a `ProtocolRequestType`
 * with a `messageDirection` (protocol/src/common/messages.ts, `MessageDirection.clientToServer` /
 * `serverToClient`), and its JSON-RPC layer cancels with `$/cancelRequest {id}` and reports
 * progress with `$/progress {token, value}` (jsonrpc/src/common/connection.ts, `CancelNotification`
 * and `ProgressNotification`). Here the progress token is the request's own id: a request that
 * streams says so in its type, and its receiver sends `$/progress {id, value}` before the answer.
 */
import * as z from 'zod';
import { MAX_TOOL_CALLS_IN_ONE_REPLY, ToolCallSchema } from './context';
import { MAX_CALL_TOKENS } from './domain';
import { LmRequestSchema } from './messageSchemas';
import { int, oneOf, text } from './schema';

/** Who sends the request: a client to the daemon, or the daemon to a client (the VS Code window). */
export type Direction = 'client→daemon' | 'daemon→client';

export interface RequestType<P extends z.ZodType, R extends z.ZodType, G extends z.ZodType | undefined> {
  direction: Direction;
  params: P;
  result: R;
  /** The shape of each `$/progress` value this request streams before its answer; none when it does not. */
  progress: G;
  doc: string;
}

/** A request a client sends to the daemon (no progress). */
export function toDaemon<P extends z.ZodType, R extends z.ZodType>(
  params: P,
  result: R,
  doc: string,
): RequestType<P, R, undefined> {
  return { direction: 'client→daemon', params, result, progress: undefined, doc };
}

/** A request the daemon sends to a client, optionally streaming progress. */
export function toClient<P extends z.ZodType, R extends z.ZodType, G extends z.ZodType | undefined>(
  params: P,
  result: R,
  progress: G,
  doc: string,
): RequestType<P, R, G> {
  return { direction: 'daemon→client', params, result, progress, doc };
}

/** How a VS Code model call failed, in the provider's words (ProviderError kinds a window can see). */
export const LmFailKindSchema = oneOf(['unreachable', 'auth', 'rate_limited', 'server', 'bad_request']);

/** The answer to `lm/chat`: the reply and VS Code's counts, or the model's refusal for the user. */
export const LmChatResultSchema = z.discriminatedUnion('ok', [
  z.object({
    ok: z.literal(true),
    text: text({ max: 2_000_000 }),
    promptTokens: int(0, MAX_CALL_TOKENS).optional(),
    completionTokens: int(0, MAX_CALL_TOKENS).optional(),
    /** The tools the model asked to call (only when the request offered tools). */
    toolCalls: z.array(ToolCallSchema).max(MAX_TOOL_CALLS_IN_ONE_REPLY).optional(),
  }),
  z.object({ ok: z.literal(false), message: text({ min: 1, max: 2_000 }), kind: LmFailKindSchema }),
]);
export type LmChatResult = z.output<typeof LmChatResultSchema>;

/** One streamed piece of an `lm/chat` reply. */
export const LmChatProgressSchema = z.object({ text: text({ max: 2_000_000 }) });
export type LmChatProgress = z.output<typeof LmChatProgressSchema>;

/**
 * Requests the daemon sends to a client that registered to answer them (the VS Code window, with
 * `lm/register`). Adding one here adds its types and its checks on both sides.
 */
export const CLIENT_REQUESTS = {
  'lm/chat': toClient(
    LmRequestSchema,
    LmChatResultSchema,
    LmChatProgressSchema,
    "A `vscode-lm` participant's model call, made through VS Code's language models: the reply streams back as `$/progress` pieces, then the answer; `$/cancelRequest` from the daemon (a cut, a turn timeout) cancels the VS Code request.",
  ),
} as const;

export type ClientMethod = keyof typeof CLIENT_REQUESTS;

export function isClientMethod(m: string): m is ClientMethod {
  return Object.hasOwn(CLIENT_REQUESTS, m);
}

const requestId = int(1, Number.MAX_SAFE_INTEGER);

/** The generic notifications, the same in both directions. */
export const PEER_NOTIFICATIONS = {
  /** The sender no longer wants the answer to its request `id`; the receiver stops and answers `cancelled`. */
  '$/cancelRequest': z.object({ id: requestId }),
  /** A piece of the answer to the receiver's request `id`, shaped as that request's type says. */
  '$/progress': z.object({ id: requestId, value: z.unknown() }),
} as const;
export type PeerNotification = keyof typeof PEER_NOTIFICATIONS;
export type PeerNotifications = { [K in PeerNotification]: z.output<(typeof PEER_NOTIFICATIONS)[K]> };

export function isPeerNotification(m: string): m is PeerNotification {
  return Object.hasOwn(PEER_NOTIFICATIONS, m);
}
