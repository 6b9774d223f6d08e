/**
 * Wall time is the slowest worker plus the slower of the calls that must follow it, only if the
 * engine asks at once whatever does not wait on another answer. Checked on what a real loopback
 * server saw: each call of a group is held until the whole group has arrived (or 5 s have
 * passed, so a serialising engine fails the assertions instead of hanging).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Participant } from '@roundtable/protocol';
import { OpenAIProvider } from '../../daemon/src/providers/openai';
import { eventsOfType, runMeeting } from '../fakes/meetings';
import { seatOf, startFakeOpenAI, type ChatBody, type FakeOpenAI, type RecordedRequest } from '../fakes/openaiServer';

const WORKERS = ['ada', 'grace', 'linus'];

/** Which group a call belongs to: a round's worker turns, or a round's review and the compaction made beside it. */
function groupOf(body: ChatBody): string | undefined {
  const { me, round, system } = seatOf(body);
  if (WORKERS.includes(me)) return `turns ${round}`;
  // The compaction made in round r folds the rounds up to r - 1 (its ask names the judge too: read it first).
  const folded = /Update the rolling summary to cover everything above up to the end of round (\d+)/.exec(system);
  if (folded) return `after ${Number(folded[1]) + 1}`;
  return /the judge/.test(system) ? `after ${round}` : undefined;
}

/** Holds every call until `size(group)` calls of its group arrived, for at most `maxMs`. */
function barrier(size: (group: string) => number, maxMs: number) {
  const waiting = new Map<string, { count: number; open: () => void; opened: Promise<void> }>();
  return (group: string): Promise<void> => {
    let g = waiting.get(group);
    if (!g) {
      let open = () => undefined as void;
      const opened = new Promise<void>((resolve) => (open = resolve));
      const timer = setTimeout(open, maxMs);
      g = { count: 0, open: () => (clearTimeout(timer), open()), opened };
      waiting.set(group, g);
    }
    if (++g.count >= size(group)) g.open();
    return g.opened;
  };
}

function responder(arrive: (group: string) => Promise<void>) {
  return async (body: ChatBody) => {
    const { me, round, system } = seatOf(body);
    const group = groupOf(body);
    if (group) await arrive(group);
    if (/Update the rolling summary/.test(system)) return 'Summary: the room is split on release coupling.';
    if (/the judge/.test(system)) return `@ada: cite the build times of round ${round}`;
    if (/closing digest/.test(system))
      return 'CONSENSUS_STATEMENT: no consensus\nCONTRIBUTORS: ada, grace, linus\nDISSENT: ada on coupling';
    if (/chairs a structured roundtable/.test(system)) return 'Welcome.';
    const stance = me === 'ada' ? 'DISAGREE' : 'NEUTRAL';
    return `${me} in round ${round}: builds slow down, releases couple; ${'evidence '.repeat(20)}[STANCE: ${stance}]`;
  };
}

/** True when every call arrived before any of them was answered. */
function overlapped(calls: RecordedRequest[]): boolean {
  // In the server's own order of events: two clock readings may fall in the same millisecond.
  const lastArrival = Math.max(...calls.map((c) => c.arrivedStep));
  const firstEnd = Math.min(...calls.map((c) => c.endedStep ?? Infinity));
  return calls.length > 1 && lastArrival < firstEnd;
}

const openaiPanel = (): Participant[] => [
  { name: 'sam', role: 'assistant', provider: 'openai', model: 'm' },
  { name: 'jude', role: 'judge', provider: 'openai', model: 'm' },
  ...WORKERS.map((name) => ({ name, role: 'worker' as const, provider: 'openai' as const, model: 'm' })),
];

describe('wall time: what can overlap, overlaps', () => {
  let fake: FakeOpenAI;
  before(async () => {
    // Round 2 is the one with a compaction beside its review (see the meeting's config below).
    const arrive = barrier(
      (group) => (group.startsWith('turns') ? WORKERS.length : group === 'after 2' ? 2 : 1),
      5_000,
    );
    fake = await startFakeOpenAI(responder(arrive));
  });
  after(() => fake.close());

  it("asks a round's workers at once, and the judge's review together with a due compaction", async () => {
    const { state, events } = await runMeeting({
      script: { replies: {} },
      provider: new OpenAIProvider({ baseURL: fake.baseURL }),
      participants: openaiPanel(),
      config: { maxRounds: 3, order: 'parallel', compactAtTokens: 150 },
    });
    assert.equal(state.rounds.length, 3);
    const chats = fake.requests.filter((r) => r.path.startsWith('/v1/chat/completions'));
    const byGroup = new Map<string, RecordedRequest[]>();
    for (const r of chats) {
      const g = groupOf(r.body);
      if (g) byGroup.set(g, [...(byGroup.get(g) ?? []), r]);
    }
    for (const round of [1, 2, 3]) {
      const turns = byGroup.get(`turns ${round}`) ?? [];
      assert.equal(turns.length, WORKERS.length, `round ${round}'s turns`);
      assert.ok(overlapped(turns), `round ${round}'s workers were asked one after another`);
    }
    // Past the threshold in round 2, round 1 is folded (never at the last round).
    assert.deepEqual(
      eventsOfType(events, 'summary_updated').map((e) => e.round),
      [1],
    );
    const pair = byGroup.get('after 2') ?? [];
    assert.equal(pair.length, 2, "round 2's review and compaction");
    assert.ok(overlapped(pair), "round 2's compaction waited for its review, or the review for it");
  });
});
