/**
 * VS Code models (Copilot) bill requests, not tokens. A meeting on them makes the calls a naive
 * round-robin chat makes (one per worker per round) and only these on top: the briefing, one
 * judge review per round, the digest, and a call per compaction. A reply with no stance costs one
 * follow-up request (cheaper than the extra round an unreadable stance can cost); it is counted
 * and shown in the bill like any other. Requests are counted where VS Code would see them: the
 * `lm/chat` requests the daemon sends the window.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { LmRequest, Participant } from '@roundtable/protocol';
import { billOf } from '@roundtable/protocol';
import { VscodeLmBridge } from '../../daemon/src/providers/vscodeLm';
import { eventsOfType, runMeeting } from '../fakes/meetings';
import { lastUserMessage, seatOf, type ChatBody } from '../fakes/openaiServer';

const WORKERS = ['ada', 'grace', 'linus'];

const copilotPanel = (): Participant[] => [
  { name: 'sam', role: 'assistant', provider: 'vscode-lm', model: 'copilot-gpt-4o' },
  { name: 'jude', role: 'judge', provider: 'vscode-lm', model: 'copilot-gpt-4o' },
  ...WORKERS.map((name) => ({
    name,
    role: 'worker' as const,
    provider: 'vscode-lm' as const,
    model: 'copilot-gpt-4o',
  })),
];

/** What a request asks for, read from its messages as the window receives them. */
function purposeOf(r: LmRequest): string {
  const body: ChatBody = { messages: r.messages };
  const { system } = seatOf(body);
  if (/has no stance marker/.test(lastUserMessage(body))) return 'followup';
  if (/Update the rolling summary/.test(system)) return 'summary';
  if (/closing digest/.test(system)) return 'digest';
  if (/chairs a structured roundtable/.test(system)) return 'briefing';
  if (/the judge/.test(system)) return 'judge';
  return 'turn';
}

/** A window answering every request at once; `silent` workers leave the stance out of their reply in round 1. */
function copilotWindow(silent: string[] = []) {
  const bridge = new VscodeLmBridge();
  const seen: string[] = [];
  bridge.register({
    chat: (r) => {
      const purpose = purposeOf(r);
      seen.push(purpose);
      const { me, round } = seatOf({ messages: r.messages });
      const text =
        purpose === 'followup'
          ? '[STANCE: NEUTRAL]'
          : purpose === 'summary'
            ? 'Summary: ada opposes on release coupling; grace and linus weigh build times.'
            : purpose === 'digest'
              ? 'CONSENSUS_STATEMENT: no consensus\nCONTRIBUTORS: ada, grace, linus\nDISSENT: ada on coupling'
              : purpose === 'briefing'
                ? 'Welcome. We decide on the monorepo.'
                : purpose === 'judge'
                  ? `@ada: cite the build times of round ${round}`
                  : `${me} in round ${round}: releases couple, builds slow. ${'evidence '.repeat(30)}` +
                    (silent.includes(me) && round === 1 ? '' : `[STANCE: ${me === 'ada' ? 'DISAGREE' : 'NEUTRAL'}]`);
      return new Promise((resolve) => setImmediate(() => resolve({ ok: true, text })));
    },
  });
  return { bridge, seen };
}

function count(purposes: string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const p of purposes) out[p] = (out[p] ?? 0) + 1;
  return out;
}

describe('Copilot: a meeting bills no request a naive chat would not, beyond its own few', () => {
  const cases = [
    // Under the default threshold a 4-round meeting never compacts: no summary request at all.
    { label: 'every stance given, no compaction due', silent: [], compactAtTokens: undefined, folded: [] },
    // Rounds 1-2 pass 600 tokens only when round 3 is reviewed: one compaction, then.
    { label: 'one reply missing its stance, one compaction due', silent: ['grace'], compactAtTokens: 600, folded: [2] },
  ];
  for (const { label, silent, compactAtTokens, folded } of cases) {
    it(`4 rounds of 3 workers: ${label}`, async () => {
      const { bridge, seen } = copilotWindow(silent);
      const rounds = 4;
      const { state, events } = await runMeeting({
        script: { replies: {} },
        provider: bridge,
        participants: copilotPanel(),
        config: { maxRounds: rounds, order: 'parallel', ...(compactAtTokens ? { compactAtTokens } : {}) },
      });
      assert.equal(state.rounds.length, rounds);
      const compacted = eventsOfType(events, 'summary_updated').map((e) => e.round);
      assert.deepEqual(compacted, folded, 'rounds folded into the summary');
      const compactions = compacted.length;
      const naive = WORKERS.length * rounds;
      assert.deepEqual(count(seen), {
        turn: naive,
        briefing: 1,
        // Every round but the last is reviewed: the last one's corrections would reach nobody.
        judge: rounds - 1,
        digest: 1,
        ...(compactions ? { summary: compactions } : {}),
        ...(silent.length ? { followup: silent.length } : {}),
      });
      // The bill shows every request the window was sent, by the purpose the engine recorded.
      assert.equal(billOf(state).requestsByProvider['vscode-lm'], seen.length);
      assert.deepEqual(count(eventsOfType(events, 'usage_recorded').map((u) => u.purpose)), count(seen));
    });
  }
});
