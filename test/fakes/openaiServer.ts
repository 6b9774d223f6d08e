/**
 * A real OpenAI-compatible HTTP server on 127.0.0.1 (port 0) for tests: streamed SSE in the exact
 * chunk format of the Chat Completions API, a usage chunk when asked for, and scripted faults
 * (status codes with Retry-After, resets mid-stream, stalls, missing usage).
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Behaviour {
  text?: string;
  /** Characters per SSE chunk (default 8). */
  chunkSize?: number;
  /** Delay before the first byte. */
  delayMs?: number;
  chunkDelayMs?: number;
  /** Send the usage chunk when the client asks for it (default true). */
  usage?: boolean;
  /** Answer with this HTTP status and `errorBody` instead of a completion. */
  status?: number;
  retryAfter?: number;
  errorBody?: unknown;
  /** Destroy the socket after this many content chunks. */
  resetAfterChunks?: number;
}

export interface RecordedRequest {
  path: string;
  method: string;
  headers: http.IncomingHttpHeaders;
  body: ChatBody;
}

export interface ChatBody {
  model?: string;
  messages?: { role: string; content: string }[];
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  max_tokens?: number;
  response_format?: { type: string };
}

export type Responder = (body: ChatBody, index: number) => Behaviour;

export interface FakeOpenAI {
  baseURL: string;
  port: number;
  requests: RecordedRequest[];
  /** Behaviours used first, in order, before the responder. */
  enqueue(...b: Behaviour[]): void;
  setResponder(r: Responder): void;
  close(): Promise<void>;
}

/** Default: `REPLY: <text>` on a line of the last user message is echoed; otherwise a short agreeing reply. */
export const defaultResponder: Responder = (body) => {
  const last = [...(body.messages ?? [])].reverse().find((m) => m.role === 'user')?.content ?? '';
  const scripted = /^REPLY:\s*(.*)$/m.exec(last)?.[1];
  return { text: scripted ?? `ok from ${body.model ?? 'model'} [STANCE: AGREE]` };
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function approxTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}

export async function startFakeOpenAI(responder: Responder = defaultResponder): Promise<FakeOpenAI> {
  const queue: Behaviour[] = [];
  const requests: RecordedRequest[] = [];
  let respond = responder;
  const sockets = new Set<import('node:net').Socket>();

  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (d: Buffer) => (raw += d.toString()));
    req.on('end', () => {
      void (async () => {
        let body: ChatBody;
        try {
          body = raw ? (JSON.parse(raw) as ChatBody) : {};
        } catch {
          res.writeHead(400, { 'Content-Type': 'application/json' });
          res.end(JSON.stringify({ error: { message: 'invalid JSON', type: 'invalid_request_error' } }));
          return;
        }
        const index = requests.length;
        requests.push({ path: req.url ?? '', method: req.method ?? '', headers: req.headers, body });
        if (req.method === 'GET' && req.url?.endsWith('/models')) {
          res.writeHead(200, { 'Content-Type': 'application/json' });
          res.end(JSON.stringify({ object: 'list', data: [{ id: 'fake-model', object: 'model', owned_by: 'test' }] }));
          return;
        }
        if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
          res.writeHead(404, { 'Content-Type': 'application/json' });
          res.end(JSON.stringify({ error: { message: 'not found' } }));
          return;
        }
        const b = queue.shift() ?? respond(body, index);
        if (b.delayMs) await sleep(b.delayMs);
        if (b.status && b.status >= 400) {
          res.writeHead(b.status, {
            'Content-Type': 'application/json',
            ...(b.retryAfter !== undefined ? { 'Retry-After': String(b.retryAfter) } : {}),
          });
          res.end(
            JSON.stringify(b.errorBody ?? { error: { message: `fake error ${b.status}`, type: 'server_error' } }),
          );
          return;
        }
        const text = b.text ?? '';
        const id = `chatcmpl-${index}`;
        const created = Math.floor(Date.now() / 1000);
        const model = body.model ?? 'fake-model';
        const promptTokens = approxTokens((body.messages ?? []).map((m) => m.content).join('\n'));
        if (!body.stream) {
          res.writeHead(200, { 'Content-Type': 'application/json' });
          res.end(
            JSON.stringify({
              id,
              object: 'chat.completion',
              created,
              model,
              choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
              usage: {
                prompt_tokens: promptTokens,
                completion_tokens: approxTokens(text),
                total_tokens: promptTokens + approxTokens(text),
              },
            }),
          );
          return;
        }
        res.writeHead(200, {
          'Content-Type': 'text/event-stream',
          'Cache-Control': 'no-cache',
          Connection: 'keep-alive',
        });
        const send = (obj: unknown) => res.write(`data: ${JSON.stringify(obj)}\n\n`);
        const chunk = (delta: Record<string, unknown>, finish: string | null) => ({
          id,
          object: 'chat.completion.chunk',
          created,
          model,
          choices: [{ index: 0, delta, finish_reason: finish }],
        });
        send(chunk({ role: 'assistant', content: '' }, null));
        const size = b.chunkSize ?? 8;
        let sent = 0;
        for (let i = 0; i < text.length; i += size) {
          if (b.resetAfterChunks !== undefined && sent >= b.resetAfterChunks) {
            req.socket.destroy();
            return;
          }
          if (b.chunkDelayMs) await sleep(b.chunkDelayMs);
          if (res.destroyed) return;
          send(chunk({ content: text.slice(i, i + size) }, null));
          sent++;
        }
        send(chunk({}, 'stop'));
        if (body.stream_options?.include_usage && b.usage !== false) {
          send({
            id,
            object: 'chat.completion.chunk',
            created,
            model,
            choices: [],
            usage: {
              prompt_tokens: promptTokens,
              completion_tokens: approxTokens(text),
              total_tokens: promptTokens + approxTokens(text),
            },
          });
        }
        res.write('data: [DONE]\n\n');
        res.end();
      })();
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    port,
    requests,
    enqueue: (...b) => queue.push(...b),
    setResponder: (r) => (respond = r),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
