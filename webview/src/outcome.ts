/**
 * What the room and the review say first about a closed meeting's result, before any detail: a
 * meeting that produced no decision (nothing to accept: say why, offer Retry) and a demo whose
 * replies were scripted (never presented as an answer). One definition for both views.
 */
import type { MeetingState } from '@roundtable/protocol';
import { ignoresTopic, isScriptedPanel } from '@roundtable/protocol';

/** Why there is no decision to accept (names the model and the refusal), or undefined. */
export function noDecisionOf(s: Pick<MeetingState, 'digest'>): string | undefined {
  return s.digest?.digest.noDecision || undefined;
}

/** True when the replies were the scripted demo's: the digest says so, or every seat is scripted. */
export function isDemo(s: Pick<MeetingState, 'digest' | 'participants'>): boolean {
  return s.digest?.digest.demo === true || isScriptedPanel(s.participants);
}

/** The demo line ("Demo: scripted replies that ignore your topic"), or undefined for a real meeting. */
export function demoNote(s: Pick<MeetingState, 'digest' | 'participants' | 'providers' | 'topic'>): string | undefined {
  if (!isDemo(s)) return undefined;
  // The demo flow runs on the script's own topic; a script about another topic ignores this one.
  const ignores = s.digest?.digest.demo === true || ignoresTopic(s);
  return ignores ? 'Scripted replies that ignore your topic' : 'Scripted replies, not a model’s answer';
}
