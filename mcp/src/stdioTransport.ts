/**
 * `roundtable mcp`'s stdio transport: newline-delimited JSON-RPC, as the SDK's own, but every
 * request is answered. The SDK's transport drops a line its schema refuses without a word — a
 * `progressToken` that is an object, a fraction, `null` or a huge number, or `_meta` that is not an
 * object, leaves the call unanswered and the client waiting for ever. Here such a token is dropped
 * at the boundary (the call runs, without progress), and any other request the schema refuses is
 * answered with a one-line JSON-RPC error.
 */
import type { Readable, Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** A progress token longer than this is not echoed back in every notification: it is ignored. */
export const MAX_PROGRESS_TOKEN_CHARS = 256;
/** A line longer than this (no newline yet) is dropped: no request is that large. */
const MAX_LINE_BYTES = 16 * 1024 * 1024;

/** A token the spec allows (a string or an integer) that can be sent back as it came. */
export function validProgressToken(v: unknown): boolean {
  return (typeof v === 'string' && v.length <= MAX_PROGRESS_TOKEN_CHARS) || Number.isSafeInteger(v);
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

type Guarded = { message: JSONRPCMessage } | { reply: JSONRPCMessage } | { error: string };

/** JSON-RPC's "invalid request" answer, in one line. */
function invalid(id: string | number, why: string): Guarded {
  const message = `invalid request: ${why}`.replace(/\s+/g, ' ').slice(0, 300);
  return { reply: { jsonrpc: '2.0', id, error: { code: -32600, message } } as JSONRPCMessage };
}

/** A parsed line as the server may take it, the answer it gets instead, or why it is dropped. */
export function guardMessage(raw: unknown): Guarded {
  const params = isObject(raw) ? raw.params : undefined;
  if (isObject(params) && '_meta' in params) {
    const meta = params._meta;
    if (!isObject(meta)) delete params._meta;
    else if ('progressToken' in meta && !validProgressToken(meta.progressToken)) delete meta.progressToken;
  }
  const parsed = JSONRPCMessageSchema.safeParse(raw);
  if (parsed.success) return { message: parsed.data };
  const id = isObject(raw) ? raw.id : undefined;
  if (isObject(raw) && typeof raw.method === 'string' && (typeof id === 'string' || Number.isSafeInteger(id))) {
    const issue = parsed.error.issues[0];
    return invalid(id as string | number, issue ? `${issue.path.join('.') || 'message'}: ${issue.message}` : 'refused');
  }
  return { error: 'a message that is not JSON-RPC was dropped' };
}

export class McpStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;
  private chunks: Buffer[] = [];
  private pending = 0;

  constructor(
    private readonly stdin: Readable,
    private readonly stdout: Writable,
  ) {}

  private readonly ondata = (chunk: Buffer): void => {
    let start = 0;
    for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, start)) {
      this.chunks.push(chunk.subarray(start, nl));
      const line = Buffer.concat(this.chunks).toString('utf8').replace(/\r$/, '');
      this.chunks = [];
      this.pending = 0;
      start = nl + 1;
      if (line.trim()) this.line(line);
    }
    this.chunks.push(chunk.subarray(start));
    this.pending += chunk.length - start;
    if (this.pending > MAX_LINE_BYTES) {
      this.chunks = [];
      this.pending = 0;
      this.onerror?.(new Error(`a line over ${MAX_LINE_BYTES} bytes was dropped`));
    }
  };

  private line(text: string): void {
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      void this.send({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error: not JSON' } } as never);
      return;
    }
    const g = guardMessage(raw);
    if ('message' in g) this.onmessage?.(g.message);
    else if ('reply' in g) void this.send(g.reply);
    else this.onerror?.(new Error(g.error));
  }

  start(): Promise<void> {
    this.stdin.on('data', this.ondata);
    return Promise.resolve();
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (this.stdout.write(`${JSON.stringify(message)}\n`)) resolve();
      else this.stdout.once('drain', resolve);
    });
  }

  close(): Promise<void> {
    this.stdin.off('data', this.ondata);
    this.chunks = [];
    this.onclose?.();
    return Promise.resolve();
  }
}
