/**
 * The correlation of requests with their answers, for either side of a connection: the calls a
 * side makes (its one map of id -> waiting call, with timeout, abort, progress and the result
 * checked against the request's type) and the calls it serves (its one map of id -> running
 * handler, cancelled by `$/cancelRequest`). RpcClient uses both; the daemon's connection makes its
 * calls to the VS Code window with the first. See requestTypes.ts for the LSP model.
 */
import type * as z from 'zod';
import type { RequestType } from './requestTypes';
import { isErrorCode, type ErrorCode } from './messageSchemas';
import type { RequestEnvelope, ResponseEnvelope } from './messages';
import { check } from './schema';

/** What went wrong: a protocol error code, or why a request got no answer (client side only). */
export type RpcErrorCode = ErrorCode | 'closed' | 'timeout' | 'cancelled';

/**
 * The one error with a code. The daemon's handlers and the meeting's commands throw it, the
 * server sends its code and message as they are, and RpcClient raises it again on the other side.
 */
export class RpcError extends Error {
  constructor(
    readonly code: RpcErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'RpcError';
  }
}

/** What a call needs of an AbortSignal (Node's and the browser's both fit). */
export interface AbortSignalLike {
  readonly aborted: boolean;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/** Timers, injectable so a test can drive time; defaults to the runtime's own. */
export interface Timers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const runtimeTimers: Timers = {
  setTimeout: (fn, ms) => (globalThis as unknown as { setTimeout: Timers['setTimeout'] }).setTimeout(fn, ms),
  clearTimeout: (h) => (globalThis as unknown as { clearTimeout: Timers['clearTimeout'] }).clearTimeout(h),
};

export interface RequestOptions {
  /** Rejects with RpcError('timeout') when no answer came in this time; 0 = wait forever. */
  timeoutMs?: number;
  /** Rejects with RpcError('cancelled') when aborted; a late answer is then ignored. */
  signal?: AbortSignalLike;
}

type AnyRequestType = RequestType<z.ZodType, z.ZodType, z.ZodType | undefined>;
type Table = Record<string, AnyRequestType>;
type ResultIn<T extends Table, M extends keyof T> = z.output<T[M]['result']>;
type ProgressIn<T extends Table, M extends keyof T> = T[M]['progress'] extends z.ZodType
  ? z.output<T[M]['progress']>
  : never;

export interface CallOptions<G> extends RequestOptions {
  /** Each `$/progress` value of this call, checked against the request's progress type. */
  onProgress?: (value: G) => void;
}

interface Waiting {
  method: string;
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
  onProgress?: (value: unknown) => void;
}

export interface OutgoingOptions {
  /** Default: the runtime's own. */
  timers?: Timers;
  /** Default timeout of a call; 0 = wait forever. */
  timeoutMs: number;
  /** Who answers, in messages ("the daemon", "the VS Code window"). */
  peer: string;
  /** Said after a timeout ("check that it is running"). */
  timeoutHint?: string;
}

/** The calls one side makes: one map, every answer and progress checked against its request's type. */
export class OutgoingCalls<T extends Table> {
  private nextId = 1;
  private readonly waiting = new Map<number, Waiting>();
  /** Calls this side cancelled: their late answer and progress are expected, and dropped. */
  private readonly dropped = new Set<number>();
  private closed: RpcError | undefined;

  constructor(
    private readonly table: T,
    private readonly send: (message: object) => void,
    private readonly opts: OutgoingOptions,
  ) {}

  call<M extends keyof T & string>(
    method: M,
    params: z.output<T[M]['params']>,
    opts: CallOptions<ProgressIn<T, M>> = {},
  ): Promise<ResultIn<T, M>> {
    if (this.closed) return Promise.reject(this.closed);
    if (opts.signal?.aborted) return Promise.reject(new RpcError('cancelled', `${method} was cancelled`));
    const id = this.nextId++;
    const timeoutMs = opts.timeoutMs ?? this.opts.timeoutMs;
    const { peer } = this.opts;
    const timers = this.opts.timers ?? runtimeTimers;
    return new Promise<ResultIn<T, M>>((resolve, reject) => {
      let timer: unknown;
      const onAbort = (): void => {
        if (!this.waiting.has(id)) return;
        settle(() => reject(new RpcError('cancelled', `${method} was cancelled`)));
        this.cancel(id);
      };
      const settle = (then: () => void): void => {
        if (!this.waiting.delete(id)) return;
        if (timer !== undefined) timers.clearTimeout(timer);
        opts.signal?.removeEventListener('abort', onAbort);
        then();
      };
      this.waiting.set(id, {
        method,
        resolve: (v) => settle(() => resolve(v as ResultIn<T, M>)),
        reject: (e) => settle(() => reject(e)),
        ...(opts.onProgress ? { onProgress: opts.onProgress as (v: unknown) => void } : {}),
      });
      if (timeoutMs > 0) {
        const s = Math.round(timeoutMs / 100) / 10;
        const hint = this.opts.timeoutHint ? `; ${this.opts.timeoutHint}` : '';
        timer = timers.setTimeout(
          () => settle(() => reject(new RpcError('timeout', `${peer} did not answer ${method} within ${s} s${hint}`))),
          timeoutMs,
        );
      }
      opts.signal?.addEventListener('abort', onAbort, { once: true });
      try {
        this.send({ kind: 'request', id, method, params });
      } catch (e) {
        settle(() => reject(new RpcError('closed', `could not send ${method}: ${(e as Error).message}`)));
      }
    });
  }

  /** Whether a call of this id awaits its answer. */
  has(id: number): boolean {
    return this.waiting.has(id);
  }

  /** An answer from the peer; false when it answers no call this side made (a cancelled one's is dropped). */
  answer(m: ResponseEnvelope): boolean {
    const w = this.waiting.get(m.id);
    if (!w) return this.dropped.delete(m.id);
    if (!m.ok) {
      w.reject(new RpcError(m.error.code, m.error.message));
      return true;
    }
    // The peer is a boundary too: an answer that does not fit its request's type is refused.
    const result = check(this.typeOf(w).result, m.result, `${w.method} result`);
    if (result.ok) w.resolve(result.value);
    else w.reject(new RpcError('internal', `${this.opts.peer}'s answer to ${w.method} is malformed: ${result.error}`));
    return true;
  }

  /** A `$/progress` of a waiting call: checked, then handed on; a malformed one fails the call and cancels it. */
  progress(p: { id: number; value: unknown }): boolean {
    const w = this.waiting.get(p.id);
    if (!w) return this.dropped.has(p.id);
    const shape = this.typeOf(w).progress;
    const value = shape
      ? check(shape, p.value, `${w.method} progress`)
      : { ok: false as const, error: `${w.method} does not stream progress` };
    if (value.ok) {
      w.onProgress?.(value.value);
      return true;
    }
    w.reject(new RpcError('bad_request', `${this.opts.peer} sent malformed progress: ${value.error}`));
    this.cancel(p.id);
    return true;
  }

  /** The connection is gone: every waiting call fails with the reason, and later ones at once. */
  closedBy(reason: string): void {
    this.closed ??= new RpcError('closed', reason);
    for (const w of [...this.waiting.values()]) w.reject(this.closed);
    this.dropped.clear();
  }

  private typeOf(w: Waiting): AnyRequestType {
    return this.table[w.method] as AnyRequestType;
  }

  /** Tells the peer to stop call `id` (`$/cancelRequest`); its late answer is then expected. */
  private cancel(id: number): void {
    this.dropped.add(id);
    try {
      this.send({ kind: 'event', method: '$/cancelRequest', params: { id } });
    } catch {
      // The connection is going; its close fails what is left.
    }
  }
}

/** What a handler gets besides its params: the cancellation and its progress channel. */
export interface ServeContext<G> {
  /** Cancelled by the peer's `$/cancelRequest`, or when the connection goes. */
  readonly token: CancelToken;
  progress(value: G): void;
}

export type RequestHandler<T extends Table, M extends keyof T> = (
  params: z.output<T[M]['params']>,
  ctx: ServeContext<ProgressIn<T, M>>,
) => Promise<ResultIn<T, M>>;

/** A cancellation a handler can look at or listen to (the shape of VS Code's CancellationToken). */
export class CancelToken {
  private cancelled = false;
  private readonly listeners = new Set<() => void>();

  get isCancellationRequested(): boolean {
    return this.cancelled;
  }

  /** Calls `fn` once on cancellation (at once if it already happened); returns its remover. */
  onCancellationRequested(fn: () => void): () => void {
    if (this.cancelled) {
      fn();
      return () => undefined;
    }
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  cancel(): void {
    if (this.cancelled) return;
    this.cancelled = true;
    for (const fn of [...this.listeners]) fn();
    this.listeners.clear();
  }
}

/** The calls one side serves: its handlers, and one map of the running ones for `$/cancelRequest`. */
export class IncomingCalls<T extends Table> {
  private readonly handlers = new Map<string, RequestHandler<T, keyof T>>();
  private readonly running = new Map<number, CancelToken>();

  constructor(
    private readonly table: T,
    private readonly send: (message: object) => void,
  ) {}

  /** Serves `method` with `handler` (replacing an earlier one); returns its remover. */
  handle<M extends keyof T & string>(method: M, handler: RequestHandler<T, M>): () => void {
    this.handlers.set(method, handler);
    return () => {
      if (this.handlers.get(method) === (handler as unknown)) this.handlers.delete(method);
    };
  }

  /** A request from the peer: checked, served, answered once (`cancelled` when it was cancelled). */
  serve(m: RequestEnvelope): void {
    const { id, method } = m;
    const fail = (code: ErrorCode, message: string): void =>
      this.reply({ kind: 'response', id, ok: false, error: { code, message } });
    const type = Object.hasOwn(this.table, method) ? this.table[method] : undefined;
    const handler = this.handlers.get(method);
    if (!type || !handler) return fail('unknown_method', `this client does not answer "${method.slice(0, 60)}"`);
    const params = check(type.params, m.params, method);
    if (!params.ok) return fail('bad_request', params.error);
    const token = new CancelToken();
    this.running.set(id, token);
    const progress = (value: unknown): void => {
      if (this.running.get(id) === token) this.reply({ kind: 'event', method: '$/progress', params: { id, value } });
    };
    void Promise.resolve()
      .then(() => handler(params.value as never, { token, progress: progress }))
      .then(
        (result) =>
          token.isCancellationRequested ? fail('cancelled', `${method} was cancelled`) : this.ok(id, result),
        (e: unknown) => {
          if (token.isCancellationRequested) return fail('cancelled', `${method} was cancelled`);
          const code = e instanceof RpcError && isErrorCode(e.code) ? e.code : 'internal';
          fail(code, (e as Error)?.message ?? String(e));
        },
      )
      .finally(() => this.running.delete(id));
  }

  /** The peer's `$/cancelRequest`: the handler's token is cancelled (an unknown id is ignored). */
  cancel(id: number): void {
    this.running.get(id)?.cancel();
  }

  /** The connection is gone: every running handler is cancelled. */
  cancelAll(): void {
    for (const t of this.running.values()) t.cancel();
  }

  private ok(id: number, result: unknown): void {
    this.reply({ kind: 'response', id, ok: true, result });
  }

  private reply(message: object): void {
    try {
      this.send(message);
    } catch {
      // The connection is gone: the peer fails the call itself.
    }
  }
}
