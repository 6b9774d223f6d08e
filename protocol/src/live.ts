/**
 * Text being written right now (from `room/delta`), one entry per model call, until the logged
 * event that finalises the call arrives. The daemon keys a call's deltas by the message id of
 * the call (`messageIdOf`: one id per seat for briefing, judge, summary and digest) and says
 * its purpose in the delta, so the entry key adds the round: a judge or summary of the next round is a
 * new entry, never text appended to the last one. Entries are dropped by the event that settles
 * them (`settle`), and whatever the folded state already shows as settled is never displayed
 * (`visibleLive`), so nothing "writing…" outlives its call, a close, a cut or a failure.
 */
import type { CallPurpose } from './domain';
import type { MeetingEvent, MessageDelta } from './events';
import type { MeetingState } from './state';
import { messageIdOf } from './messageIds';

export type LivePurpose = 'turn' | 'ballot' | 'proposal' | 'briefing' | 'judge' | 'summary' | 'digest';

export interface LiveEntry {
  /** Stable key in the room's list; equal to the final message's key where the call posts one. */
  key: string;
  messageId: string;
  from: string;
  round: number;
  purpose: LivePurpose;
  /** The call's purpose as the daemon said it (to send the entry on as deltas). */
  callPurpose: CallPurpose;
  meetingId: string;
  /** The reply written so far (never the thinking). */
  text: string;
  /** The model's thinking written so far: shown folded, never as the reply. */
  thinking: string;
}

/** What a call's entry shows: a worker's call in a consensus meeting proposes (round 0) or votes. */
export function purposeOf(purpose: CallPurpose, round: number, mode: MeetingState['mode']): LivePurpose {
  if (purpose !== 'turn' && purpose !== 'followup') return purpose;
  return mode === 'consensus' ? (round === 0 ? 'proposal' : 'ballot') : 'turn';
}

/** The list key of a call's entry: the posted message's id for turns and the briefing, else per round. */
export function liveKey(messageId: string, purpose: LivePurpose, round: number): string {
  return purpose === 'turn' || purpose === 'briefing' ? messageId : `${messageId}@r${round}`;
}

/** Key of a round's judge feedback in the list (the judge's live entry turns into it). */
export function judgeKey(judge: string, round: number): string {
  return liveKey(messageIdOf('judge', round, judge), 'judge', round);
}

export class LiveMessages {
  private readonly entries = new Map<string, LiveEntry>();

  /** Adds a chunk. After a close only the digest is still written, so other late chunks are dropped. */
  delta(d: MessageDelta, s: MeetingState): void {
    const purpose = purposeOf(d.purpose, d.round, s.mode);
    if ((s.status === 'closed' || s.status === 'awaiting_human') && purpose !== 'digest') return;
    const key = liveKey(d.messageId, purpose, d.round);
    let e = this.entries.get(key);
    if (!e) {
      e = {
        key,
        messageId: d.messageId,
        from: d.from,
        round: d.round,
        purpose,
        callPurpose: d.purpose,
        meetingId: d.meetingId,
        text: '',
        thinking: '',
      };
      this.entries.set(key, e);
    }
    // A thinking piece goes into the fold, never into the reply (nor its Copy, nor its stance).
    if (d.thinking) e.thinking += d.text;
    else e.text += d.text;
  }

  /** Drops the entries a logged event finalises. */
  settle(e: MeetingEvent): void {
    const drop = (f: (x: LiveEntry) => boolean): void => {
      for (const [k, x] of this.entries) if (f(x)) this.entries.delete(k);
    };
    switch (e.type) {
      case 'message_posted':
        drop((x) => x.messageId === e.messageId && (x.purpose === 'briefing' || x.round === e.round));
        break;
      case 'stance_recorded':
      case 'turn_failed':
        drop((x) => x.from === e.participant && x.round === e.round && x.purpose !== 'digest');
        break;
      case 'ballot_recorded':
        drop((x) => x.from === e.worker && x.round === e.round);
        break;
      case 'options_proposed':
        drop((x) => x.from === e.worker && x.purpose === 'proposal');
        break;
      case 'judge_feedback':
        drop((x) => x.purpose === 'judge' && x.round === e.round);
        break;
      case 'summary_updated':
        drop((x) => x.purpose === 'summary' && x.round === e.round);
        break;
      case 'round_started':
        drop((x) => x.round < e.round);
        break;
      case 'digest_ready':
      case 'meeting_closed':
      case 'meeting_interrupted':
      case 'escalated':
        this.entries.clear();
        break;
      default:
        break;
    }
  }

  clear(): void {
    this.entries.clear();
  }

  list(): LiveEntry[] {
    return [...this.entries.values()];
  }
}

/**
 * An entry as the deltas that rebuild it (its thinking, then its reply): what a view that attaches
 * while a call is being written is sent, so it shows the whole of it, not only what comes next.
 */
export function deltasOf(x: LiveEntry): MessageDelta[] {
  const base = { meetingId: x.meetingId, messageId: x.messageId, purpose: x.callPurpose, from: x.from, round: x.round };
  return [
    ...(x.thinking ? [{ ...base, text: x.thinking, thinking: true as const }] : []),
    ...(x.text ? [{ ...base, text: x.text }] : []),
  ];
}

/** True when the folded state already holds what the call was writing (or no call can still run). */
export function isSettled(s: MeetingState, x: LiveEntry): boolean {
  if (s.status === 'awaiting_human') return true;
  if (x.purpose === 'digest') return false;
  if (s.status === 'closed') return true;
  const r = s.rounds.find((y) => y.round === x.round);
  switch (x.purpose) {
    case 'briefing':
      return s.briefing !== undefined;
    case 'proposal':
      return s.proposals[x.from] !== undefined;
    case 'judge':
      return r?.judge !== undefined;
    case 'summary':
      return r?.summary !== undefined;
    case 'turn':
    case 'ballot':
      return (
        !!r && (r.stances[x.from] !== undefined || r.failures[x.from] !== undefined || r.ballots[x.from] !== undefined)
      );
  }
}

/** The live entries to show with state `s`. */
export function visibleLive(s: MeetingState, live: readonly LiveEntry[]): LiveEntry[] {
  return live.filter((x) => !isSettled(s, x));
}
