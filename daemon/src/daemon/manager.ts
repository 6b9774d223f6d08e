/**
 * Owns the daemon's meetings: starts them, resumes the unfinished ones at start-up, and fans
 * their events out to subscribers. Exactly one `Meeting` object (one loop) drives a meeting at
 * a time; many meetings run at once.
 */
import type {
  ContextAttached,
  DecisionKind,
  MeetingEvent,
  MeetingState,
  MeetingSummary,
  MessageDelta,
  Participant,
  ProviderConfig,
  ResolveAction,
  StartMeetingParams,
} from '@roundtable/protocol';
import { RpcError, collapseWhitespace, fold, listedSummary } from '@roundtable/protocol';
import type { Clock } from '../meeting/clock';
import { Meeting } from '../meeting/engine';
import type { EngineDeps } from '../meeting/ports';
import { AttachedSeats } from '../providers/attached';
import type { ChatProvider } from '../providers/types';
import { StoreQuarantinedError, StoreWriteError, type EventStore, type QuarantinedMeeting } from '../store/types';
import { evidenceChecker } from '../meeting/evidence';
import { contextRoot } from '../context/attach';
import { knownSecrets } from '../meeting/keyRedaction';
import { reviewOf } from '../review/prepare';
import { meetingSchedule, type KeyedLimiter } from './limiter';
import { FaultOwner } from './faults';

export interface ManagerOptions {
  store: EventStore;
  clock: Clock;
  /**
   * Builds the provider lookup of one meeting from its logged provider config and, for a meeting
   * started in this process, the API key it was started with (memory only). Attached seats are
   * handled here, not by the lookup.
   */
  providers: (config: ProviderConfig | undefined, apiKey: string | undefined) => (p: Participant) => ChatProvider;
  limiter?: KeyedLimiter;
  log: (line: string) => void;
  newId: () => string;
  /** Secrets every meeting keeps out of its log (the daemon's token, the keys in its environment). */
  secrets?: readonly string[];
  /** Where a meeting's evidence is checked, when not in its workspace (the daemon's demo rule). */
  evidenceWorkspace?: (params: StartMeetingParams) => string | undefined;
  /** A meeting's loop stopped on an error other than a failed store write (which is retried). */
  onStopped?: (meetingId: string, e: Error) => void;
}

interface Live {
  meeting: Meeting;
  seats: AttachedSeats;
  /** What the meeting was built with (its providers, with a key given at start): to rebuild it from its log. */
  deps: EngineDeps;
  run?: Promise<unknown>;
  /** The wait before driving again a meeting the store could not write for (doubles, at most 30 s). */
  retryMs?: number;
}

/** The first wait before a meeting stopped by a failed store write is driven again. */
const STORE_RETRY_MS = 500;
const STORE_RETRY_MAX_MS = 30_000;

export class MeetingManager {
  private readonly live = new Map<string, Live>();
  /**
   * The list's row of each meeting, kept as its events are appended, so `meeting/list` folds a
   * meeting's log at most once per daemon (the first time it is listed), not on every call.
   */
  private readonly summaries = new Map<string, MeetingSummary>();
  private readonly eventListeners = new Set<(e: MeetingEvent) => void>();
  private readonly deltaListeners = new Set<(d: MessageDelta) => void>();
  private stopping = false;

  constructor(private readonly opts: ManagerOptions) {}

  onEvent(fn: (e: MeetingEvent) => void): () => void {
    this.eventListeners.add(fn);
    return () => this.eventListeners.delete(fn);
  }

  onDelta(fn: (d: MessageDelta) => void): () => void {
    this.deltaListeners.add(fn);
    return () => this.deltaListeners.delete(fn);
  }

  private depsFor(
    meeting: { id: string; participants: readonly Participant[] },
    seats: AttachedSeats,
    lookup: (p: Participant) => ChatProvider,
    workspace: string | undefined,
    apiKey?: string,
  ) {
    const limiter = this.opts.limiter;
    return {
      secrets: knownSecrets([...(this.opts.secrets ?? []), apiKey]),
      ...(workspace ? { checkEvidence: evidenceChecker(workspace) } : {}),
      store: this.opts.store,
      clock: this.opts.clock,
      providerFor: (p: Participant) => (p.provider === 'attached' ? seats : lookup(p)),
      onEvent: (e: MeetingEvent, s: MeetingState) => {
        this.summaries.set(e.meetingId, listedSummary(s));
        for (const fn of this.eventListeners) fn(e);
      },
      onDelta: (d: MessageDelta) => {
        for (const fn of this.deltaListeners) fn(d);
      },
      ...(limiter ? { schedule: meetingSchedule(limiter, meeting.id, meeting.participants, lookup) } : {}),
    };
  }

  /**
   * Opens and drives a meeting. `prepared`: the context its estimate read already (`null`: nothing
   * to attach), so the start reads nothing again; `params` then carry a prepared review's scope.
   */
  async start(params: StartMeetingParams, prepared?: ContextAttached | null): Promise<string> {
    if (this.stopping) throw new RpcError('conflict', 'the daemon is shutting down');
    const seats = new AttachedSeats();
    const meetingId = this.opts.newId();
    const { apiKey, ...asked } = params;
    const workspace = this.opts.evidenceWorkspace?.(params) ?? params.workspace;
    // The context the person attached is read from their folder, even when the demo's evidence is not.
    const person = contextRoot(params);
    const logged =
      workspace === params.workspace ? asked : { ...asked, workspace, ...(person ? { contextWorkspace: person } : {}) };
    let lookup: (p: Participant) => ChatProvider;
    try {
      lookup = this.opts.providers(params.providers, apiKey);
    } catch (e) {
      throw new RpcError('bad_request', (e as Error).message);
    }
    const review = prepared === undefined ? await reviewOf(logged) : undefined;
    const deps = this.depsFor(
      { id: meetingId, participants: (review?.params ?? logged).participants },
      seats,
      lookup,
      logged.workspace,
      apiKey,
    );
    const meeting = await Meeting.open(deps, meetingId, review?.params ?? logged, review?.context ?? prepared);
    const live: Live = { meeting, seats, deps };
    this.live.set(meetingId, live);
    this.drive(live);
    return meetingId;
  }

  private drive(live: Live): void {
    if (live.run || this.stopping) return;
    const id = live.meeting.id;
    // A fault nobody awaited in the meeting's work ends this meeting on an error, and no other (faults.ts).
    const owner = new FaultOwner(`meeting ${id}`, (e) => {
      live.meeting
        .cut('error', `the meeting stopped on an unexpected error: ${collapseWhitespace(e.message).slice(0, 300)}`)
        .catch((cut: unknown) =>
          this.opts.log(`meeting ${id}: could not end it on that error: ${(cut as Error).message}`),
        );
    });
    live.run = owner
      .run(() => live.meeting.run())
      .then((s) => {
        live.retryMs = undefined;
        this.opts.log(`meeting ${id} closed: ${s.closed?.reason ?? '?'}`);
      })
      .catch((e: unknown) => {
        this.opts.log(`meeting ${id} stopped on an error: ${(e as Error).message}`);
        // The store could not write (a full disk): nothing unacknowledged counts, so the meeting
        // goes on from its next missing step once the store writes again — no restart needed.
        if (e instanceof StoreWriteError) this.retry(live);
        else this.opts.onStopped?.(id, e as Error);
      })
      .finally(() => {
        owner.close();
        live.run = undefined;
        this.changed();
      });
    this.changed();
  }

  /**
   * A meeting stopped by a failed store write is rebuilt from its log — as a restart would, with
   * the same providers and seats — and driven again, waiting longer each time the store fails again.
   */
  private retry(live: Live): void {
    const wait = live.retryMs ?? STORE_RETRY_MS;
    live.retryMs = Math.min(wait * 2, STORE_RETRY_MAX_MS);
    const id = live.meeting.id;
    setTimeout(() => {
      if (this.stopping || this.live.get(id) !== live || live.run) return;
      // The old loop logs nothing more (its calls in flight are aborted); the log decides what is next.
      live.meeting.suspend();
      Meeting.resume(live.deps, id).then(
        (meeting) => {
          if (this.stopping || this.live.get(id) !== live || live.run) return;
          live.meeting = meeting;
          this.opts.log(`meeting ${id}: resumed from its log after the store could not write`);
          this.drive(live);
        },
        (e: unknown) => {
          this.opts.log(`meeting ${id}: cannot resume yet: ${(e as Error).message}`);
          this.retry(live);
        },
      );
    }, wait).unref();
  }

  /** Resumes every meeting the log shows as unfinished (e.g. after a crash). */
  async resumeAll(): Promise<string[]> {
    const resumed: string[] = [];
    for (const id of await this.opts.store.meetings()) {
      const s = fold(await this.opts.store.load(id));
      if (s.status === 'closed' && s.digest) continue;
      const live = await this.load(id);
      this.drive(live);
      resumed.push(id);
    }
    if (resumed.length > 0) this.opts.log(`resumed ${resumed.length} unfinished meeting(s): ${resumed.join(', ')}`);
    return resumed;
  }

  /**
   * The live meeting, loading it from the store if this daemon has not touched it yet. Concurrent
   * callers share one load, so a meeting never gets two loops.
   */
  private load(meetingId: string): Promise<Live> {
    const existing = this.live.get(meetingId);
    if (existing) return Promise.resolve(existing);
    let pending = this.loading.get(meetingId);
    if (!pending) {
      pending = this.loadOnce(meetingId).finally(() => this.loading.delete(meetingId));
      this.loading.set(meetingId, pending);
    }
    return pending;
  }
  private readonly loading = new Map<string, Promise<Live>>();

  private async loadOnce(meetingId: string): Promise<Live> {
    const events = await this.stored(meetingId, 0);
    if (events.length === 0) throw new RpcError('not_found', `no meeting ${meetingId}`);
    const seats = new AttachedSeats();
    const opened = events[0];
    const config = opened?.type === 'meeting_opened' ? opened.providers : undefined;
    const workspace = opened?.type === 'meeting_opened' ? opened.workspace : undefined;
    const participants = opened?.type === 'meeting_opened' ? opened.participants : [];
    const deps = this.depsFor(
      { id: meetingId, participants },
      seats,
      this.opts.providers(config, undefined),
      workspace,
    );
    const meeting = await Meeting.resume(deps, meetingId);
    const live: Live = { meeting, seats, deps };
    this.live.set(meetingId, live);
    return live;
  }

  async state(meetingId: string): Promise<MeetingState> {
    const live = this.live.get(meetingId);
    if (live) return live.meeting.state;
    const events = await this.stored(meetingId, 0);
    if (events.length === 0) throw new RpcError('not_found', `no meeting ${meetingId}`);
    return fold(events);
  }

  async list(): Promise<MeetingSummary[]> {
    const out: MeetingSummary[] = [];
    for (const id of await this.opts.store.meetings()) {
      let summary = this.summaries.get(id);
      if (!summary) this.summaries.set(id, (summary = listedSummary(await this.state(id))));
      out.push(summary);
    }
    return [...out, ...(this.opts.store.quarantined?.() ?? []).map(quarantinedSummary)];
  }

  /** A meeting's events from the store; a quarantined meeting is refused in one line. */
  private async stored(meetingId: string, sinceSeq: number): Promise<MeetingEvent[]> {
    try {
      return await this.opts.store.load(meetingId, sinceSeq);
    } catch (e) {
      if (e instanceof StoreQuarantinedError) throw new RpcError('conflict', e.message);
      throw e;
    }
  }

  /** Deletes a closed meeting from history; one still running or waiting for the human is refused. */
  async remove(meetingId: string): Promise<void> {
    const s = await this.state(meetingId);
    const live = this.live.get(meetingId);
    if (s.status !== 'closed' || live?.run) {
      throw new RpcError('conflict', `meeting ${meetingId} is not closed; cut it first, then delete it`);
    }
    this.live.delete(meetingId);
    await this.opts.store.remove(meetingId);
    this.summaries.delete(meetingId);
    this.changed();
  }

  /** Meetings whose loop is running now (not closed, not waiting for the human). */
  running(): number {
    let n = 0;
    for (const l of this.live.values()) if (l.run) n++;
    return n;
  }

  /** Called whenever a meeting starts or stops running (the daemon's idle watch listens). */
  onRunningChange: (() => void) | undefined;
  private changed(): void {
    this.onRunningChange?.();
  }

  events(meetingId: string, sinceSeq: number): Promise<MeetingEvent[]> {
    return this.stored(meetingId, sinceSeq);
  }

  /** Resolves once the post is durable; its id is random, so concurrent posts never share one. */
  /** `from` is the human's display name (default "human"); prompts always show a human as `human`. */
  async post(meetingId: string, text: string, from?: string): Promise<string> {
    const live = await this.load(meetingId);
    return live.meeting.postHuman(text, from);
  }

  /** Resolves once the cut is logged (it survives a restart); in-flight calls are then aborted. */
  async cut(meetingId: string, reason?: string): Promise<void> {
    const live = await this.load(meetingId);
    await live.meeting.cut('cut', reason ? `cut by the human: ${reason}` : 'cut by the human');
    this.drive(live);
  }

  /** Resolves once the close is logged; the meeting closes after the round in progress. */
  async close(meetingId: string, reason?: string): Promise<void> {
    const live = await this.load(meetingId);
    await live.meeting.close(reason ? `closed by the human: ${reason}` : undefined);
    this.drive(live);
  }

  async decide(
    meetingId: string,
    decision: DecisionKind,
    opts: { instruction?: string; digestText?: string },
  ): Promise<void> {
    const live = await this.load(meetingId);
    if (live.run) await live.run;
    await live.meeting.decide(decision, opts);
    if (decision === 'another_round') this.drive(live);
  }

  async resolve(
    meetingId: string,
    action: ResolveAction,
    opts: { option?: string; instruction?: string },
  ): Promise<void> {
    const live = await this.load(meetingId);
    if (live.run) await live.run;
    await live.meeting.resolve(action, opts);
    this.drive(live);
  }

  async seats(meetingId: string): Promise<{ seats: AttachedSeats; meeting: Meeting }> {
    const live = await this.load(meetingId);
    this.drive(live);
    return { seats: live.seats, meeting: live.meeting };
  }

  /** Stops accepting work and waits for in-flight appends; unfinished meetings resume next start. */
  async shutdown(): Promise<void> {
    this.stopping = true;
    const running = [...this.live.values()].map((l) => l.run).filter((r): r is Promise<unknown> => r !== undefined);
    // Meetings are not cut (that would end them): they simply stop here and resume on restart.
    for (const l of this.live.values()) l.meeting.suspend();
    await Promise.allSettled(running);
  }
}

/** A quarantined meeting's row in the list: closed on an error, with the line that says why. */
function quarantinedSummary(q: QuarantinedMeeting): MeetingSummary {
  return {
    meetingId: q.meetingId,
    topic: q.topic ?? '(unreadable)',
    mode: 'roundtable',
    status: 'closed',
    round: 0,
    maxRounds: 0,
    tokensSpoken: 0,
    tokenBudget: 0,
    terminatedBy: 'error',
    createdAt: q.createdAt ?? 0,
    lastSeq: 0,
    quarantined: q.why,
  };
}
