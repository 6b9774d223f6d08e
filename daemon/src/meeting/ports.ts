/**
 * What the engine is given to act on the world: providers, store, clock, the evidence checker
 * and the live outlets. Everything the engine does outside itself goes through these ports, so
 * tests swap any of them for a fake.
 */
import type { Evidence, MeetingEvent, MeetingState, MessageDelta, Participant } from '@roundtable/protocol';
import type { ChatProvider } from '../providers/types';
import type { EventStore } from '../store/types';
import type { Clock } from './clock';

export interface EngineDeps {
  store: EventStore;
  /** The provider that answers for a participant. */
  providerFor: (p: Participant) => ChatProvider;
  clock: Clock;
  /** Live streaming of messages as they are written (not logged). */
  onDelta?: (d: MessageDelta) => void;
  /** Every appended event, in order, once durable, with the meeting's state after it. */
  onEvent?: (e: MeetingEvent, s: MeetingState) => void;
  /**
   * Wraps every model call, e.g. to limit concurrency per endpoint so one busy meeting cannot
   * starve the others. Defaults to calling straight through.
   */
  schedule?: <T>(p: Participant, call: () => Promise<T>, signal?: AbortSignal) => Promise<T>;
  /**
   * Secrets to keep out of the log and the live view (the API keys the meeting calls with, the
   * daemon's token; see keyRedaction.ts): a server that echoes one has it replaced in every event and delta.
   */
  secrets?: readonly string[];
  /** Consensus mode: whether a cited file exists in the workspace. Unchecked when absent. */
  checkEvidence?: (file: string) => Promise<Evidence['status']>;
}
