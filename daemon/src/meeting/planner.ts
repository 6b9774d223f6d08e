/**
 * The next step of a meeting, from its state alone (pure: no clock, no I/O). Steps shared by
 * every mode are decided here; the rest is the mode's planner. A logged close request wins:
 * a cut at once, a graceful close at the next round boundary.
 */
import type { MeetingState } from '@roundtable/protocol';
import { MODES } from './modes';
import type { Step } from './steps';

export function nextStep(s: MeetingState): Step {
  if (s.status === 'closed') return s.digest ? { kind: 'done' } : { kind: 'digest' };
  const ask = s.closeRequest;
  const close: Step | undefined = ask
    ? { kind: 'close', reason: ask.reason, ...(ask.detail !== undefined ? { detail: ask.detail } : {}) }
    : undefined;
  if (close && ask && !ask.graceful) return close;
  const step = planFrom(s);
  if (close && (step.kind === 'start_round' || step.kind === 'briefing' || step.kind === 'await_human')) return close;
  return step;
}

function planFrom(s: MeetingState): Step {
  if (s.status === 'awaiting_human') return { kind: 'await_human' };
  // A review has no briefing: the change and the rulebook are what its reviewers are told.
  if (!s.briefing && !s.config.review) return { kind: 'briefing' };
  return MODES[s.mode].plan(s);
}
