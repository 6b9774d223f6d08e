/**
 * Typed request/response client over any text transport (a `ws` socket in Node, the extension's
 * socket to the daemon). No Node, DOM or vscode imports: the caller supplies the transport, and
 * timers and abort signals are used through the small structural types of calls.ts.
 */
import { checkDaemonEvent, checkPeerNotification, isDaemonEventMethod, parseEnvelope } from './guards';
import type { DaemonMethod, ParamsOf, ResultOf } from './messages';
import type { DaemonEvents } from './notifications';
import { DAEMON_REQUESTS, MAX_MESSAGE_BYTES } from './messages';
import { CLIENT_REQUESTS, isPeerNotification, type ClientMethod } from './requestTypes';
import { IncomingCalls, OutgoingCalls, type RequestHandler, type RequestOptions, type Timers } from './calls';

export interface Transport {
  send(text: string): void;
  close(): void;
}

export interface RpcClientOptions {
  /** Default timeout of every request (default 60 s); a request may override it. */
  timeoutMs?: number;
  timers?: Timers;
}

export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;

/** Hears one event the daemon sent, its params checked against the event's schema. */
export type DaemonEventListener = <K extends keyof DaemonEvents>(method: K, params: DaemonEvents[K]) => void;

/**
 * A client's end of a connection: the requests it sends the daemon (typed by DAEMON_REQUESTS),
 * the daemon's events, and the daemon's requests it answers (typed by CLIENT_REQUESTS) once a
 * handler is registered with `handle`, with `$/cancelRequest` and `$/progress` either way.
 */
export class RpcClient {
  private readonly calls: OutgoingCalls<typeof DAEMON_REQUESTS>;
  private readonly served: IncomingCalls<typeof CLIENT_REQUESTS>;

  constructor(
    private readonly transport: Transport,
    private readonly onEvent: DaemonEventListener = () => undefined,
    opts: RpcClientOptions = {},
  ) {
    const send = (message: object): void => transport.send(JSON.stringify(message));
    this.calls = new OutgoingCalls(DAEMON_REQUESTS, send, {
      ...(opts.timers ? { timers: opts.timers } : {}),
      timeoutMs: opts.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
      peer: 'the daemon',
      timeoutHint: 'check that it is running (roundtable daemon) and try again',
    });
    this.served = new IncomingCalls(CLIENT_REQUESTS, send);
  }

  request<M extends DaemonMethod>(method: M, params: ParamsOf<M>, opts: RequestOptions = {}): Promise<ResultOf<M>> {
    return this.calls.call(method, params, opts);
  }

  /** Answers the daemon's `method` requests with `handler` (the VS Code window's `lm/chat`); returns its remover. */
  handle<M extends ClientMethod>(method: M, handler: RequestHandler<typeof CLIENT_REQUESTS, M>): () => void {
    return this.served.handle(method, handler);
  }

  /** Whether a request of this id awaits its answer (the handshake refuses answers to anything else). */
  isPending(id: number): boolean {
    return this.calls.has(id);
  }

  /** Feed every text frame received from the transport here. */
  receive(text: string): void {
    const env = parseEnvelope(text, MAX_MESSAGE_BYTES);
    if (!env.ok) return;
    const m = env.value;
    if (m.kind === 'response') this.calls.answer(m);
    else if (m.kind === 'request') this.served.serve(m);
    else if (isPeerNotification(m.method)) {
      const params = checkPeerNotification(m.method, m.params);
      if (!params.ok) return;
      if ('value' in params.value) this.calls.progress(params.value);
      else this.served.cancel(params.value.id);
    } else if (isDaemonEventMethod(m.method)) {
      const params = checkDaemonEvent(m.method, m.params);
      if (params.ok) this.onEvent(m.method, params.value);
    }
  }

  /** Call when the transport closes: every pending request fails with the reason, every served one is cancelled. */
  closedBy(reason: string): void {
    this.calls.closedBy(reason);
    this.served.cancelAll();
  }

  close(): void {
    this.transport.close();
    this.closedBy('the client closed the connection');
  }
}
