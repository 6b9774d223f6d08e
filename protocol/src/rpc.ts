/**
 * Typed request/response client over any text transport (a `ws` socket in Node, the extension's
 * socket to the daemon). No Node, DOM or vscode imports: the caller supplies the transport.
 */
import { parseEnvelope } from './guards';
import type { DaemonEvents, DaemonMethod, ErrorCode, ParamsOf, ResultOf } from './messages';
import { MAX_MESSAGE_BYTES } from './messages';

export interface Transport {
  send(text: string): void;
  close(): void;
}

export class RpcError extends Error {
  constructor(
    readonly code: ErrorCode | 'closed' | 'timeout',
    message: string,
  ) {
    super(message);
    this.name = 'RpcError';
  }
}

type EventHandler = <K extends keyof DaemonEvents>(method: K, params: DaemonEvents[K]) => void;

export class RpcClient {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private closed: RpcError | undefined;

  constructor(
    private readonly transport: Transport,
    private readonly onEvent: EventHandler = () => undefined,
  ) {}

  request<M extends DaemonMethod>(method: M, params: ParamsOf<M>): Promise<ResultOf<M>> {
    if (this.closed) return Promise.reject(this.closed);
    const id = this.nextId++;
    return new Promise<ResultOf<M>>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      try {
        this.transport.send(JSON.stringify({ kind: 'request', id, method, params }));
      } catch (e) {
        this.pending.delete(id);
        reject(new RpcError('closed', `could not send ${method}: ${(e as Error).message}`));
      }
    });
  }

  /** Feed every text frame received from the transport here. */
  receive(text: string): void {
    const env = parseEnvelope(text, MAX_MESSAGE_BYTES);
    if (!env.ok) return;
    const m = env.value;
    if (m.kind === 'response') {
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      if (m.ok) p.resolve(m.result);
      else p.reject(new RpcError(m.error.code, m.error.message));
    } else if (m.kind === 'event') {
      this.onEvent(m.method as keyof DaemonEvents, m.params as never);
    }
  }

  /** Call when the transport closes: every pending request fails with the reason. */
  closedBy(reason: string): void {
    this.closed = new RpcError('closed', reason);
    for (const p of this.pending.values()) p.reject(this.closed);
    this.pending.clear();
  }

  close(): void {
    this.transport.close();
    this.closedBy('the client closed the connection');
  }
}
