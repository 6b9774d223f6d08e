/**
 * What a human or an agent asks of a meeting, decided into events. `decide` is pure: it reads the
 * folded state and returns the events to append (or refuses with one clear line). The caller
 * appends them durably before it acknowledges the command, so nothing a user asked for lives only
 * in memory. Ids are never derived from the state (it may lag behind in-flight appends): the
 * caller puts a fresh random id in the command.
 */
import type {
  DecisionKind,
  EventBody,
  ResolveAction,
  MeetingState,
  Participant,
  TerminationReason,
} from '@roundtable/protocol';
import {
  INSTRUCTION_NEEDED,
  RpcError,
  currentRound,
  decisionRefusal,
  findOption,
  lacksInstruction,
} from '@roundtable/protocol';
import { countTokens } from '../providers/tokens';

export type Command =
  /** A human post, shown to the workers in the next round. */
  | { type: 'post'; messageId: string; text: string; from?: string }
  /** Ends the meeting at once: in-flight calls are aborted after the request is logged. */
  | { type: 'cut'; reason?: TerminationReason; detail?: string }
  /** Ends the meeting once the round in progress is complete. */
  | { type: 'close'; detail?: string }
  /** The human's decision on the digest; `another_round` reopens for one final round. */
  | { type: 'decide'; decision: DecisionKind; instruction?: string; digestText?: string; messageId: string }
  /** Consensus mode: the human's answer to an escalation. */
  | {
      type: 'resolve';
      action: ResolveAction;
      option?: string;
      instruction?: string;
      messageId: string;
    }
  /** An agent takes a seat mid-meeting; it speaks from the next round. */
  | { type: 'join'; participant: Participant }
  /** An attached agent leaves; its pending turn is answered with a pass by the seat. */
  | { type: 'leave'; name: string }
  /** An attached agent's words for its pending turn; the turn itself records the reply. */
  | { type: 'speak'; name: string; text: string };

export type RejectionCode = 'conflict' | 'bad_request' | 'not_found';

/** A command the meeting's state refuses; `message` is one line saying what to do. */
function reject(code: RejectionCode, message: string): never {
  throw new RpcError(code, message);
}

function seatOf(s: MeetingState, name: string): Participant | undefined {
  return s.participants.find((p) => p.name.toLowerCase() === name.toLowerCase());
}

function humanPost(s: MeetingState, messageId: string, text: string, from = 'human'): EventBody {
  const round = currentRound(s)?.round ?? 0;
  return { type: 'human_posted', messageId, from, text, tokens: countTokens(text), round };
}

/** The events a command produces in this state; throws an `RpcError` when it cannot apply. */
export function decide(command: Command, s: MeetingState): EventBody[] {
  switch (command.type) {
    case 'post':
      if (s.status === 'closed') reject('conflict', 'the meeting is closed; ask for another round to continue it');
      return [humanPost(s, command.messageId, command.text, command.from)];
    case 'cut':
      if (s.status === 'closed' || (s.closeRequest && !s.closeRequest.graceful)) return [];
      return [
        {
          type: 'close_requested',
          reason: command.reason ?? 'cut',
          ...(command.detail !== undefined ? { detail: command.detail } : {}),
          graceful: false,
        },
      ];
    case 'close':
      if (s.status === 'closed' || s.closeRequest) return [];
      return [
        { type: 'close_requested', reason: 'cut', detail: command.detail ?? 'closed by the human', graceful: true },
      ];
    case 'decide':
      return decideDecision(command, s);
    case 'resolve':
      return decideResolve(command, s);
    case 'join':
      if (s.status === 'closed') reject('conflict', 'the meeting is closed');
      if (seatOf(s, command.participant.name))
        reject('conflict', `${command.participant.name} is already at the table`);
      return [{ type: 'participant_joined', participant: command.participant }];
    case 'leave':
    case 'speak': {
      // No event of their own: a leave answers the pending turn with a pass, and the spoken words
      // travel through the seat into the turn, which records them. Only the checks are decided here.
      const seat = seatOf(s, command.name);
      if (!seat) reject('not_found', `${command.name} has no seat in this meeting; join it first`);
      if (seat.provider !== 'attached') reject('conflict', `${seat.name} is run by the daemon, not by an agent`);
      if (command.type === 'speak' && s.status === 'closed') reject('conflict', 'the meeting is closed');
      return [];
    }
  }
}

/** A decision on the digest of a closed meeting (Accept, Reject, Another round). */
function decideDecision(command: Extract<Command, { type: 'decide' }>, s: MeetingState): EventBody[] {
  if (s.status !== 'closed' || !s.digest) {
    reject('conflict', 'a decision is recorded on the digest, once the meeting has closed');
  }
  const { decision, instruction, digestText } = command;
  // The one rule the extension follows too: no Accept or Reject of a meeting with no decision.
  const refused = decisionRefusal(s, decision);
  if (refused) reject('conflict', refused);
  const events: EventBody[] = [
    {
      type: 'decision_recorded',
      decision,
      ...(instruction !== undefined ? { instruction } : {}),
      ...(digestText !== undefined ? { digestText } : {}),
    },
  ];
  // The post is decided against the reopened meeting: it belongs to the round about to start.
  if (decision === 'another_round' && instruction) events.push(humanPost(s, command.messageId, instruction));
  return events;
}

/** The human's answer to an escalation. */
function decideResolve(command: Extract<Command, { type: 'resolve' }>, s: MeetingState): EventBody[] {
  if (s.status !== 'awaiting_human') reject('conflict', 'the meeting is not waiting for a human decision');
  const { action, instruction } = command;
  let option: string | undefined;
  if (action === 'pick') {
    const o = findOption(s, command.option);
    if (!o) {
      reject('conflict', `pick one of the options: ${s.options.map((x) => `${x.id} (${x.label})`).join(', ')}`);
    }
    option = o.id;
  }
  if (lacksInstruction(action, instruction)) reject('conflict', INSTRUCTION_NEEDED);
  const events: EventBody[] = [
    {
      type: 'human_resolved',
      action,
      ...(option ? { option } : {}),
      ...(instruction ? { instruction } : {}),
    },
  ];
  if (action === 'another_round' && instruction) events.push(humanPost(s, command.messageId, instruction));
  return events;
}
