/** What the daemon's request handlers share: the server's state, passed to each handler of the tables. */
import type { DaemonMethod, ParamsOf, ResultOf } from '@roundtable/protocol';
import type { VscodeLmBridge } from '../providers/vscodeLm';
import type { Connection } from './connection';
import type { Fanout } from './fanout';
import type { MeetingManager } from './manager';
import type { serialized } from './seats';

/** What the agent/* handlers need. */
export interface AgentContext {
  manager: MeetingManager;
  conns: ReadonlySet<Connection>;
  /** Joins of one meeting run one at a time, so the seat limit and name checks cannot be raced. */
  joins: ReturnType<typeof serialized>;
}

/** One server's state, shared by its handlers. */
export interface ServerContext extends AgentContext {
  conns: Set<Connection>;
  fanout: Fanout;
  /** Where `vscode-lm` calls go; extensions register with it. */
  lmBridge: VscodeLmBridge | undefined;
  /** The connection whose VS Code window answers vscode-lm calls: one per daemon. */
  lmOwner: Connection | undefined;
  log: (line: string) => void;
  /** Called after a client connected or disconnected (the idle watch listens). */
  onConnectionsChange: (() => void) | undefined;
  /** The token the handshake proves (auth.ts); it never leaves the process. */
  token: string;
  /** The port listened on, which both proofs of the handshake name. */
  port: () => number;
}

/**
 * The handler of one method: the server's context, the checked params, the calling connection,
 * and the request's cancellation (the client's `$/cancelRequest`).
 */
export type MethodHandler<M extends DaemonMethod, C = ServerContext> = (
  ctx: C,
  params: ParamsOf<M>,
  conn: Connection,
  cancelled: AbortSignal,
) => Promise<ResultOf<M>>;
