/** Given/when/then helpers for the pure parts of a meeting: events in, state out. */
import type { EventBody, MeetingEvent, MeetingState, Participant } from '@roundtable/protocol';
import { DEFAULT_CONFIG, fold, messageIdOf } from '@roundtable/protocol';
import { FakeClock } from './clock';

/** The log a list of event bodies makes, with seq in order and times from a fake clock. */
export function logOf(bodies: EventBody[], clock = new FakeClock()): MeetingEvent[] {
  return bodies.map((b, i) => ({ ...b, meetingId: 'm-given', seq: i + 1, at: clock.now() }));
}

/** The state a list of event bodies folds into. */
export function given(...bodies: EventBody[]): MeetingState {
  return fold(logOf(bodies));
}

export const seats: Participant[] = [
  { name: 'sam', role: 'assistant', provider: 'scripted', model: 'scripted' },
  { name: 'jude', role: 'judge', provider: 'scripted', model: 'scripted' },
  { name: 'ada', role: 'worker', provider: 'scripted', model: 'scripted' },
  { name: 'grace', role: 'worker', provider: 'scripted', model: 'scripted' },
];

export function opened(
  opts: { mode?: 'roundtable' | 'consensus'; config?: Partial<typeof DEFAULT_CONFIG>; judge?: boolean } = {},
): EventBody[] {
  const participants = opts.judge === false ? seats.filter((p) => p.role !== 'judge') : seats;
  return [
    {
      type: 'meeting_opened',
      topic: 'Adopt a monorepo?',
      mode: opts.mode ?? 'roundtable',
      config: { ...DEFAULT_CONFIG, ...opts.config },
      participants,
    },
    {
      type: 'message_posted',
      messageId: messageIdOf('briefing', 0, 'sam'),
      from: 'sam',
      role: 'assistant',
      round: 0,
      kind: 'briefing',
      text: 'Welcome.',
      tokens: 2,
    },
  ];
}

/** One roundtable round in which each worker says its stance. */
export function roundSaid(
  round: number,
  stances: Record<string, 'AGREE' | 'DISAGREE' | 'NEUTRAL' | 'PASS'>,
): EventBody[] {
  const out: EventBody[] = [{ type: 'round_started', round, speakers: Object.keys(stances), final: false }];
  for (const [w, stance] of Object.entries(stances)) {
    out.push({
      type: 'message_posted',
      messageId: messageIdOf('turn', round, w),
      from: w,
      role: 'worker',
      round,
      kind: 'contribution',
      text: `[STANCE: ${stance}]`,
      tokens: 10,
    });
    out.push({
      type: 'stance_recorded',
      round,
      participant: w,
      stance: stance === 'PASS' ? 'PASS' : stance,
      passed: stance === 'PASS',
    });
  }
  return out;
}

/** The person's post number `i` (round 0): the smallest valid event, for store tests. */
export const humanPost = (i: number): EventBody => ({
  type: 'human_posted',
  messageId: `h${i}`,
  from: 'human',
  text: `post ${i}`,
  tokens: 2,
  round: 0,
});
