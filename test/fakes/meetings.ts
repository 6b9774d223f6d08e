/** Helpers to run whole meetings in-process on the scripted provider and a real store. */
import type { MeetingConfig, MeetingEvent, MeetingState, Participant, StartMeetingParams } from '@roundtable/protocol';
import type { Clock } from '../../daemon/src/meeting/clock';
import { systemClock } from '../../daemon/src/meeting/clock';
import { Meeting } from '../../daemon/src/meeting/engine';
import type { EngineDeps } from '../../daemon/src/meeting/ports';
import { ScriptedProvider, parseScript } from '../../daemon/src/providers/scripted';
import type { ChatProvider, ChatRequest, ChatResult } from '../../daemon/src/providers/types';
import { MemoryStore } from '../../daemon/src/store/memoryStore';
import type { EventStore } from '../../daemon/src/store/types';

/** An assistant (sam), a judge (jude) and the workers, all on `seat`'s provider and model (scripted by default). */
export function panel(
  workers: string[] = ['ada', 'grace', 'linus'],
  withJudge = true,
  seat: Pick<Participant, 'provider' | 'model'> = { provider: 'scripted', model: 'scripted' },
): Participant[] {
  return [
    { name: 'sam', role: 'assistant', ...seat },
    ...(withJudge ? [{ name: 'jude', role: 'judge' as const, ...seat }] : []),
    ...workers.map((name) => ({ name, role: 'worker' as const, ...seat })),
  ];
}

/** Wraps a provider and records every request, its abort and the peak number in flight. */
export class RecordingProvider implements ChatProvider {
  readonly id = 'recording';
  readonly requests: ChatRequest[] = [];
  readonly aborted: string[] = [];
  inFlight = 0;
  peakInFlight = 0;
  private waiters: { test: (r: ChatRequest) => boolean; resolve: () => void }[] = [];

  constructor(private readonly inner: ChatProvider) {}

  /** Resolves once a request that passes `test` has been made (at once when one was). */
  until(test: (r: ChatRequest) => boolean): Promise<void> {
    if (this.requests.some(test)) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ test, resolve }));
  }

  async chat(req: ChatRequest): Promise<ChatResult> {
    this.requests.push(req);
    for (const w of this.waiters.filter((x) => x.test(req))) w.resolve();
    this.waiters = this.waiters.filter((x) => !x.test(req));
    this.inFlight++;
    this.peakInFlight = Math.max(this.peakInFlight, this.inFlight);
    req.signal.addEventListener('abort', () => this.aborted.push(req.meta.participant), { once: true });
    try {
      return await this.inner.chat(req);
    } finally {
      this.inFlight--;
    }
  }

  turnsOf(name: string): ChatRequest[] {
    return this.requests.filter((r) => r.meta.participant === name && r.meta.purpose === 'turn');
  }
}

export interface RunResult {
  state: MeetingState;
  events: MeetingEvent[];
  provider: RecordingProvider;
  store: EventStore;
  meeting: Meeting;
}

export async function runMeeting(opts: {
  script: unknown;
  topic?: string;
  participants?: Participant[];
  config?: Partial<MeetingConfig>;
  store?: EventStore;
  clock?: Clock;
  provider?: ChatProvider;
  during?: (m: Meeting, provider: RecordingProvider) => void | Promise<void>;
  deps?: Partial<EngineDeps>;
  mode?: 'roundtable' | 'consensus';
  options?: string[];
}): Promise<RunResult> {
  const provider = new RecordingProvider(opts.provider ?? new ScriptedProvider(parseScript(opts.script)));
  const store = opts.store ?? new MemoryStore();
  const params: StartMeetingParams = {
    topic: opts.topic ?? 'Should we adopt a monorepo?',
    mode: opts.mode ?? 'roundtable',
    participants: opts.participants ?? panel(),
    config: opts.config ?? {},
    ...(opts.options ? { options: opts.options } : {}),
  };
  const meeting = await Meeting.open(
    { store, providerFor: () => provider, clock: opts.clock ?? systemClock, ...opts.deps },
    `m-test-${Math.random().toString(36).slice(2, 8)}`,
    params,
  );
  const done = meeting.run();
  await opts.during?.(meeting, provider);
  const state = await done;
  return { state, events: await store.load(meeting.id), provider, store, meeting };
}

export function eventsOfType<T extends MeetingEvent['type']>(
  events: MeetingEvent[],
  type: T,
): Extract<MeetingEvent, { type: T }>[] {
  return events.filter((e): e is Extract<MeetingEvent, { type: T }> => e.type === type);
}

/**
 * Workers whose first turn is held for an hour: the meeting stays in round 1 until the test cuts it,
 * so a test that posts, cuts or waits into a running meeting cannot be overtaken by a fast (or slow)
 * machine ending it first (stable positions, max rounds). The cut aborts the held calls; `then` are
 * the replies of the turns after it (a round asked for after the cut).
 */
export function heldTurns(
  names: string[],
  stance = 'AGREE',
  then: string[] = [],
): Record<string, (string | { text: string; delayMs: number })[]> {
  return Object.fromEntries(
    names.map((n) => [n, [{ text: `Still thinking. [STANCE: ${stance}]`, delayMs: 3_600_000 }, ...then]]),
  );
}

/** `n` scripted turns with the given stance. */
export function turns(n: number, stance: string, say = 'point'): string[] {
  return Array.from({ length: n }, (_, i) => `My ${say} number ${i + 1}, with evidence.\n[STANCE: ${stance}]`);
}

/** One worker's consensus ballot as a model would write it: `[option, vote, confidence, cited files]` per option. */
export type BallotVote = [option: string, vote: string, confidence: number, files?: string[]];
export const ballot = (...votes: BallotVote[]): string =>
  JSON.stringify({
    votes: votes.map(([option, vote, confidence, files = []]) => ({
      option,
      vote,
      confidence,
      rationale: `${vote} ${option} because of the evidence`,
      evidence: files.map((file) => ({ file, section: 'top', type: 'code' })),
    })),
  });
