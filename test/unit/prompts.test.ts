/**
 * Roundtable prompts grow by appending and share one prefix across the panel (prompts.ts): what a
 * server's prefix cache needs, checked byte for byte on the prompts a real meeting sends.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { systemClock } from '../../daemon/src/meeting/clock';
import { Meeting } from '../../daemon/src/meeting/engine';
import { OpenAIProvider } from '../../daemon/src/providers/openai';
import { listModels } from '../../daemon/src/modelLists';
import type { ChatRequest } from '../../daemon/src/providers/types';
import { MemoryStore } from '../../daemon/src/store/memoryStore';
import { startFakeOpenAI } from '../fakes/openaiServer';
import { JUDGE_ANTI_CONFORMITY } from '../../daemon/src/meeting/antiConformity';
import { panel, runMeeting, turns } from '../fakes/meetings';

/** The serialized prompt as a prefix cache sees it (system first, role by role). */
const text = (r: ChatRequest | undefined, withSeat = false): string =>
  (withSeat ? (r?.messages ?? []) : (r?.messages ?? []).slice(0, -1))
    .map((m) => `<${m.role}>\n${m.content}\n`)
    .join('');

async function meeting(config: Record<string, unknown> = {}) {
  const persona = (name: string) => ({ persona: `${name.toUpperCase()}-PERSONA cares about cost` });
  return runMeeting({
    config: { maxRounds: 5, ...config },
    participants: panel(['ada', 'grace', 'linus']).map((p) => (p.role === 'worker' ? { ...p, ...persona(p.name) } : p)),
    script: {
      replies: {
        ada: turns(5, 'AGREE', 'ADA-POINT'),
        grace: turns(5, 'DISAGREE', 'GRACE-POINT'),
        linus: turns(5, 'NEUTRAL', 'LINUS-POINT'),
        jude: Array.from({ length: 5 }, (_, i) => `@grace: JUDGE-NOTE-${i + 1} cite a source — give one`),
      },
    },
  });
}

describe('roundtable prompts for prefix caches', () => {
  it("only grow from one round to the next: each seat's round r+1 prompt starts with its round r prompt, byte for byte", async () => {
    const { provider, state } = await meeting();
    assert.equal(state.rounds.length, 5);
    assert.ok(
      state.rounds.every((r) => r.summary === undefined),
      'short meeting: no compaction',
    );
    for (const name of ['ada', 'grace', 'linus', 'jude']) {
      const asks = provider.requests.filter(
        (r) => r.meta.participant === name && ['turn', 'judge'].includes(r.meta.purpose),
      );
      // The judge reviews every round but the last (its corrections would reach nobody).
      assert.ok(asks.length >= (name === 'jude' ? 4 : 5), `${name} was asked every round`);
      for (let i = 1; i < asks.length; i++) {
        // Everything but the seat message (who you are, what to do now) is carried over unchanged.
        assert.ok(text(asks[i]).startsWith(text(asks[i - 1])), `${name}: round ${i + 1} extends round ${i}`);
        assert.ok(text(asks[i]).length > text(asks[i - 1]).length);
      }
    }
  });

  it('share one prefix across the panel: in a round, every seat is sent the same system and transcript; the persona comes last', async () => {
    const { provider } = await meeting();
    const round3 = provider.requests.filter((r) => r.meta.round === 3 && r.meta.purpose === 'turn');
    assert.equal(round3.length, 3);
    const shared = text(round3[0]);
    for (const r of round3) {
      assert.equal(text(r), shared, `${r.meta.participant} shares the prefix`);
      const seat = r.messages.at(-1)?.content ?? '';
      assert.match(seat, new RegExp(`^You are ${r.meta.participant}, a worker`));
      assert.match(
        seat,
        new RegExp(`${r.meta.participant.toUpperCase()}-PERSONA`),
        'the persona is in the seat message',
      );
      assert.ok(!shared.includes('PERSONA'), 'no persona in the shared prefix');
    }
    // The judge of round 2 was sent that same prefix, up to round 2's contributions.
    const judge2 = provider.requests.find((r) => r.meta.purpose === 'judge' && r.meta.round === 2);
    assert.ok(shared.startsWith(text(judge2).replace(/\n$/, '')), "the judge's prompt is a prefix of the next round's");
  });

  it("keeps what a worker sees: every peer's posts enveloped, its own under its own name, the judge's notes", async () => {
    const { provider } = await meeting();
    const ada3 = provider.turnsOf('ada')[2];
    const transcript = ada3?.messages[1]?.content ?? '';
    for (const mark of ['GRACE-POINT number 2', 'LINUS-POINT number 2', 'GRACE-POINT number 1', 'JUDGE-NOTE-2']) {
      assert.match(transcript, new RegExp(`\\| [^\\n]*${mark}`), `${mark} is quoted`);
    }
    // ada's own posts are under her own name, and her seat says so.
    assert.match(
      transcript,
      /\[Inter-session message · from=ada · kind=peer · seq=\d+ · isUser=false\]\n\| My ADA-POINT number 2/,
    );
    assert.match(ada3?.messages.at(-1)?.content ?? '', /Posts from=ada above are your own\./);
    assert.ok(
      (transcript.match(/^\[Inter-session message[^\n]*$/gm) ?? []).every((h) => /isUser=false/.test(h)),
      'every post is in an envelope that is not the user',
    );
  });

  it('compacts only when the transcript passes the threshold; then the oldest rounds give way to the summary', async () => {
    const { provider, state } = await meeting({ compactAtTokens: 400 });
    const summaries = provider.requests.filter((r) => r.meta.purpose === 'summary');
    assert.ok(summaries.length > 0 && summaries.length < 4, `${summaries.length} compactions, not one per round`);
    const ada = provider.turnsOf('ada');
    const last = ada.at(-1)?.messages[1]?.content ?? '';
    assert.match(last, /Rolling summary of the discussion so far:\n\[Inter-session message · from=sam · kind=system/);
    assert.ok(!last.includes('| My GRACE-POINT number 1'), 'round 1 is no longer verbatim');
    assert.ok(last.includes('GRACE-POINT number 4'), 'the last round is');
    // Between compactions the prompts still only grow.
    const folded = new Set(state.rounds.filter((r) => r.summary !== undefined).map((r) => r.round + 2));
    for (let i = 1; i < ada.length; i++) {
      if (folded.has(i + 1)) continue;
      assert.ok(text(ada[i]).startsWith(text(ada[i - 1])), `ada: round ${i + 1} extends round ${i}`);
    }
  });

  it("shows the workers a judge's review only when it corrects someone or ends the meeting; the log keeps every word", async () => {
    // The judge's first review corrects grace; its second only says "continue", at length.
    const { provider, state } = await runMeeting({
      config: { maxRounds: 4, stopWhenStable: false },
      participants: panel(['ada', 'grace', 'linus']),
      script: {
        replies: {
          ada: turns(4, 'AGREE', 'ADA-POINT'),
          grace: turns(4, 'DISAGREE', 'GRACE-POINT'),
          linus: turns(4, 'NEUTRAL', 'LINUS-POINT'),
          jude: [
            '@grace: CORRECTION-1 cite a source — give one',
            'The round was on topic and everyone engaged; CONTINUE-NOTE, nothing to correct, carry on as before.',
            'CLEAN',
          ],
        },
      },
    });
    assert.equal(state.rounds[1]?.judge?.text.includes('CONTINUE-NOTE'), true, 'the review is in the log');
    for (const name of ['ada', 'grace', 'linus', 'jude']) {
      const last = provider.requests.filter((r) => r.meta.participant === name).at(-1);
      const shown = last?.messages.map((m) => m.content).join('\n') ?? '';
      assert.match(shown, /CORRECTION-1/, `${name} is shown the correction`);
      assert.doesNotMatch(shown, /CONTINUE-NOTE/, `${name} is not shown a review that corrects nobody`);
    }
  });

  it("keeps the judge's rules out of the system message every worker pays for: they are in the judge's seat", async () => {
    const { provider } = await meeting();
    const turn = provider.turnsOf('ada')[0];
    const review = provider.requests.find((r) => r.meta.purpose === 'judge');
    for (const rule of JUDGE_ANTI_CONFORMITY) {
      assert.ok(!(turn?.messages ?? []).some((m) => m.content.includes(rule)), `a worker is not sent: ${rule}`);
      assert.ok(review?.messages.at(-1)?.content.includes(rule), `the judge's seat says: ${rule}`);
    }
    // The system message is still one for every seat.
    assert.equal(review?.messages[0]?.content, turn?.messages[0]?.content);
  });

  it('asks the judge for a one-word clean verdict', async () => {
    const { provider } = await meeting();
    const judge = provider.requests.find((r) => r.meta.purpose === 'judge');
    assert.match(judge?.messages.at(-1)?.content ?? '', /CLEAN alone if the round needs no correction/);
  });
});

describe('the compaction threshold', () => {
  it("is lowered to half the smallest context window a server reports (vLLM's max_model_len), and logged", async () => {
    const fake = await startFakeOpenAI((body) => ({ text: `ok from ${body.model ?? '?'} [STANCE: AGREE]` }), {
      personality: 'vllm',
      models: ['small', 'big'],
      modelInfo: { small: { max_model_len: 4_096 }, big: { max_model_len: 131_072 } },
    });
    try {
      const provider = new OpenAIProvider({ baseURL: fake.baseURL, discover: 'always', listModels });
      const open = async (model: string, config: Record<string, unknown> = {}) => {
        const m = await Meeting.open(
          { store: new MemoryStore(), providerFor: () => provider, clock: systemClock },
          `m-window-${model}-${Object.keys(config).length}`,
          {
            topic: 't',
            mode: 'roundtable',
            participants: panel(['ada', 'grace']).map((p) => ({ ...p, provider: 'openai' as const, model })),
            config: { maxRounds: 1, ...config },
          },
        );
        return m.state.config.compactAtTokens;
      };
      assert.equal(await open('small'), 2_048);
      assert.equal(await open('big'), undefined, 'a large window keeps the default');
      assert.equal(await open('small', { compactAtTokens: 3_000 }), 3_000, 'a setting is kept as given');
    } finally {
      await fake.close();
    }
  });
});
