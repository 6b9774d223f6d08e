/**
 * Typed request/response client over any text transport (a `ws` socket in Node, the extension's
 * socket to the daemon). No Node, DOM or vscode imports: the caller supplies the transport, and
 * timers and abort signals are used through the small structural types below.
 */
import { checkDaemonEvent, checkResult, isDaemonEventMethod, parseEnvelope } from './guards';
import type { DaemonMethod, ParamsOf, ResultOf } from './messages';
import type { DaemonEvents } from './notifications';
import type { ErrorCode } from './messageSchemas';
import { MAX_MESSAGE_BYTES } from './messages';

export interface Transport {
  send(text: string): void;
  close(): void;
}

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

/** What RpcClient needs of an AbortSignal (Node's and the browser's both fit). */
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

export interface RpcClientOptions {
  /** Default timeout of every request (default 60 s); a request may override it. */
  timeoutMs?: number;
  timers?: Timers;
}

export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;

/** Hears one event the daemon sent, its params checked against the event's schema. */
export type DaemonEventListener = <K extends keyof DaemonEvents>(method: K, params: DaemonEvents[K]) => void;

interface Pending {
  /** The method asked, so its answer is checked against that method's result schema. */
  method: DaemonMethod;
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
}

export class RpcClient {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private closed: RpcError | undefined;
  private readonly timers: Timers;
  private readonly timeoutMs: number;

  constructor(
    private readonly transport: Transport,
    private readonly onEvent: DaemonEventListener = () => undefined,
    opts: RpcClientOptions = {},
  ) {
    this.timers = opts.timers ?? runtimeTimers;
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  }

  request<M extends DaemonMethod>(method: M, params: ParamsOf<M>, opts: RequestOptions = {}): Promise<ResultOf<M>> {
    if (this.closed) return Promise.reject(this.closed);
    if (opts.signal?.aborted) return Promise.reject(new RpcError('cancelled', `${method} was cancelled`));
    const id = this.nextId++;
    const timeoutMs = opts.timeoutMs ?? this.timeoutMs;
    return new Promise<ResultOf<M>>((resolve, reject) => {
      let timer: unknown;
      const onAbort = (): void => settle(() => reject(new RpcError('cancelled', `${method} was cancelled`)));
      const settle = (then: () => void): void => {
        if (!this.pending.delete(id)) return;
        if (timer !== undefined) this.timers.clearTimeout(timer);
        opts.signal?.removeEventListener('abort', onAbort);
        then();
      };
      this.pending.set(id, {
        method,
        resolve: (v) => settle(() => resolve(v as ResultOf<M>)),
        reject: (e) => settle(() => reject(e)),
      });
      if (timeoutMs > 0) {
        timer = this.timers.setTimeout(
          () =>
            settle(() =>
              reject(
                new RpcError(
                  'timeout',
                  `the daemon did not answer ${method} within ${Math.round(timeoutMs / 100) / 10} s; check that it is running (roundtable daemon) and try again`,
                ),
              ),
            ),
          timeoutMs,
        );
      }
      opts.signal?.addEventListener('abort', onAbort, { once: true });
      try {
        this.transport.send(JSON.stringify({ kind: 'request', id, method, params }));
      } catch (e) {
        settle(() => reject(new RpcError('closed', `could not send ${method}: ${(e as Error).message}`)));
      }
    });
  }

  /** Whether a request of this id awaits its answer (the handshake refuses answers to anything else). */
  isPending(id: number): boolean {
    return this.pending.has(id);
  }

  /** Feed every text frame received from the transport here. */
  receive(text: string): void {
    const env = parseEnvelope(text, MAX_MESSAGE_BYTES);
    if (!env.ok) return;
    const m = env.value;
    if (m.kind === 'response') {
      const p = this.pending.get(m.id);
      if (!p) return;
      if (!m.ok) {
        p.reject(new RpcError(m.error.code, m.error.message));
        return;
      }
      // The daemon is a boundary too: an answer that does not fit its method's schema is refused.
      const result = checkResult(p.method, m.result);
      if (result.ok) p.resolve(result.value);
      else p.reject(new RpcError('internal', `the daemon's answer to ${p.method} is malformed: ${result.error}`));
    } else if (m.kind === 'event') {
      if (!isDaemonEventMethod(m.method)) return;
      const params = checkDaemonEvent(m.method, m.params);
      if (params.ok) this.onEvent(m.method, params.value);
    }
  }

  /** Call when the transport closes: every pending request fails with the reason. */
  closedBy(reason: string): void {
    this.closed ??= new RpcError('closed', reason);
    for (const p of [...this.pending.values()]) p.reject(this.closed);
  }

  close(): void {
    this.transport.close();
    this.closedBy('the client closed the connection');
  }
}
