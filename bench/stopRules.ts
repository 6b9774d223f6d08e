/**
 * What the two stop rules save, on the whole-meeting bench's loopback server (prefix cache, usage
 * reported by the server) and prices (`PRICES`), counted from the server's own records:
 *
 * - Stop when stable: 5 workers whose stances move in round 2 and then repeat, and a judge with
 *   corrections after round 1 and none after; 8 rounds at most. Ours (the rule on, the default)
 *   against the same meeting with `stopWhenStable: false`, which runs all 8.
 * - No review that cannot matter: a meeting that ends by max rounds (4) makes no judge call after
 *   its last round. The baseline is the call the engine made before: measured as the judge's call
 *   after round 4 of the same meeting run to 5 rounds (the same transcript up to then).
 */
import { systemClock } from '../daemon/src/meeting/clock';
import { Meeting } from '../daemon/src/meeting/engine';
import { OpenAIProvider } from '../daemon/src/providers/openai';
import { MemoryStore } from '../daemon/src/store/memoryStore';
import { lastUserMessage, startFakeOpenAI, type ChatBody, type RecordedRequest } from '../test/fakes/openaiServer';
import { PRICES, benchPanel, callsPerModel, moneyOf, type Money } from './wholeMeeting';
import { HOSTED } from './serverModel';

const TOPIC = 'Should we adopt a monorepo for our services?';

/** Stances per worker: round 1 differs from round 2, which every later round repeats (w1 always dissents). */
function stanceOf(worker: number, round: number): string {
  if (worker === 1) return 'DISAGREE';
  if (round === 1) return worker % 2 ? 'NEUTRAL' : 'AGREE';
  return worker % 2 ? 'AGREE' : 'NEUTRAL';
}

function responder(): (body: ChatBody) => { text: string; delayMs: number } {
  const nth = callsPerModel();
  const filler = (n: number) => 'path scoped tests keep releases apart while builds get faster '.repeat(n).trim();
  return (body) => {
    const { model, n } = nth(body);
    const reply = (text: string) => ({ text, delayMs: 20 });
    const w = /^w(\d+)$/.exec(model);
    if (w) return reply(`Round ${n}, ${model}: ${filler(10)}.\n[STANCE: ${stanceOf(Number(w[1]), n)}]`);
    if (model === 'jude') return reply(n === 1 ? '@w1: cite a measurement for the build times' : '[CLEAN]');
    const user = lastUserMessage(body);
    if (/Update the rolling summary/.test(user)) return reply(`Summary: ${filler(12)}`);
    if (/Open the meeting/.test(user)) return reply(`Welcome. ${filler(8)}`);
    return reply(
      'CONSENSUS_STATEMENT: adopt the monorepo with path scoped tests\nCONTRIBUTORS: w2 on gating\nDISSENT: w1 on release coupling',
    );
  };
}

export interface RuleRun {
  rounds: number;
  terminatedBy: string;
  calls: number;
  judgeCalls: number;
  billed: number;
  money: Money;
  requests: RecordedRequest[];
}

async function meet(config: { maxRounds: number; stopWhenStable: boolean }): Promise<RuleRun> {
  const fake = await startFakeOpenAI(responder(), { prefixCache: HOSTED.cache });
  try {
    const provider = new OpenAIProvider({ baseURL: fake.baseURL });
    const m = await Meeting.open(
      { store: new MemoryStore(), providerFor: () => provider, clock: systemClock },
      `bench-stop-${config.maxRounds}-${config.stopWhenStable}`,
      {
        topic: TOPIC,
        mode: 'roundtable',
        participants: benchPanel(),
        config: { ...config, tokenBudget: 10_000_000, order: 'parallel', timeLimitMs: 3_600_000 },
      },
    );
    const s = await m.run();
    const chats = fake.requests.filter((r) => r.path.startsWith('/v1/chat/completions') && r.usage);
    const money = moneyOf(chats, () => 0);
    return {
      rounds: s.rounds.length,
      terminatedBy: s.closed?.reason ?? '?',
      calls: chats.length,
      judgeCalls: chats.filter((r) => r.body.model === 'jude').length,
      billed: money.promptTokens + money.completionTokens,
      money,
      requests: chats,
    };
  } finally {
    await fake.close();
  }
}

export interface StopRulesResult {
  stable: { ours: RuleRun; off: RuleRun };
  lastReview: { ours: RuleRun; saved: { calls: number; billed: number; money: Money } };
}

export async function benchStopRules(): Promise<StopRulesResult> {
  const ours = await meet({ maxRounds: 8, stopWhenStable: true });
  const off = await meet({ maxRounds: 8, stopWhenStable: false });
  const four = await meet({ maxRounds: 4, stopWhenStable: false });
  const five = await meet({ maxRounds: 5, stopWhenStable: false });
  // The judge's fourth call in the 5-round meeting reviews round 4: the call a 4-round meeting no longer makes.
  const extra = five.requests.filter((r) => r.body.model === 'jude')[3];
  const money = moneyOf(extra ? [extra] : [], () => 0);
  return {
    stable: { ours, off },
    lastReview: {
      ours: four,
      saved: { calls: extra ? 1 : 0, billed: money.promptTokens + money.completionTokens, money },
    },
  };
}

/** The rows `npm run bench -- meeting` prints. */
export function stopRulesRows(r: StopRulesResult): Record<string, string>[] {
  const usd = (m: Money, p: string) => `$${(m.usd[p] ?? 0).toFixed(4)}`;
  const row = (rule: string, what: string, a: Pick<RuleRun, 'calls' | 'billed' | 'money'>, b: typeof a) => ({
    rule,
    what,
    calls: `${a.calls} / ${b.calls}`,
    billed: `${a.billed.toLocaleString('en-US')} / ${b.billed.toLocaleString('en-US')}`,
    ...Object.fromEntries(PRICES.map((p) => [p.name, `${usd(a.money, p.name)} / ${usd(b.money, p.name)}`])),
    saved: `${Math.round((1 - a.billed / Math.max(1, b.billed)) * 100)}%`,
  });
  const { ours, off } = r.stable;
  const before = {
    calls: r.lastReview.ours.calls + r.lastReview.saved.calls,
    billed: r.lastReview.ours.billed + r.lastReview.saved.billed,
    money: {
      ...r.lastReview.ours.money,
      usd: Object.fromEntries(
        PRICES.map((p) => [
          p.name,
          (r.lastReview.ours.money.usd[p.name] ?? 0) + (r.lastReview.saved.money.usd[p.name] ?? 0),
        ]),
      ),
    },
  };
  return [
    row('stable', `${ours.rounds} rounds (${ours.terminatedBy}) / ${off.rounds} (${off.terminatedBy})`, ours, off),
    row(
      'no last review',
      `4 rounds: ${r.lastReview.ours.judgeCalls} judge calls / ${r.lastReview.ours.judgeCalls + 1}`,
      r.lastReview.ours,
      before,
    ),
  ];
}
