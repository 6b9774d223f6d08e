/**
 * `npm run bench -- review`: the bill of a review of a 300-line change by three reviewers, beside a
 * naive baseline, each on its own loopback OpenAI-compatible server with a prefix cache per model
 * (OpenAI's rule: 1,024-token minimum, 128-token blocks) and usage as the server reports it.
 *
 * Ours: `meeting/start` with `review` on a real daemon (in this process) against the repository of
 * reviewChange.ts: the daemon reads the change and the decision records, the reviewers propose
 * findings, the panel votes on those its votes can still decide. Every chat completion the server
 * answered is counted, by what it asked (reviewCallKind: proposals, ballots, their retries,
 * anything else), with each model's cached share, and every finding is checked to have been
 * verified: refuted before the vote, or judged from at least the quorum of proposals and read votes.
 * Naive: each model reviews the whole change alone in one call (its system message, the decision
 * records, the whole diff) and the three reports are concatenated: 3 calls, run one after the
 * other so the naive side gets every cache hit it can.
 *
 * The reviewers answer as models do: all three report the MySQL pool against decision 0001 (in
 * their own words), two the missing await, one the float money (decision 0003), one cites wrong
 * lines and one a superseded decision. Money by the price tables of wholeMeeting.ts (`PRICES`).
 * Our billed tokens are counted by the eval's one bill of a review (eval/src/review/bill.ts), from
 * the meeting's log, and checked against what the server itself counted.
 */
import type { Finding, MeetingEvent, Participant, ChatMessage } from '@roundtable/protocol';
import { reviewOutcome, reviewQuorum, votingRoundOf } from '@roundtable/protocol/reviewOutcome';
import { workersOf, type MeetingState } from '@roundtable/protocol';
import { connectDaemon, convene } from '@roundtable/client';
import { OpenAIProvider } from '../daemon/src/providers/openai';
import { chatCalls, startFakeOpenAI, type FakeOpenAI } from '../test/fakes/openaiServer';
import { reviewCallKind, reviewerResponder, type ReviewerScript } from '../test/fakes/reviewers';
import { callsOf, reviewBills } from '../eval/src/review/bill';
import { withDaemon } from './daemon';
import { DECISIONS, reviewRepo, type ReviewRepo } from './reviewChange';
import { CACHE } from './serverModel';
import { PRICES, moneyOf, type Money } from './wholeMeeting';

const REVIEWERS = [
  { name: 'ada', model: 'llama3.1:8b' },
  { name: 'grace', model: 'qwen2.5:7b' },
  { name: 'linus', model: 'mistral:7b' },
];

type Proposed = Omit<Finding, 'proposedBy' | 'refuted'>;

const MYSQL = (claim: string): Proposed => ({
  file: 'src/orders/db/mysqlPool.ts',
  lines: { start: 1, end: 4 },
  severity: 'blocking',
  decision: '0001',
  claim,
  quote: "import mysql from 'mysql2/promise';",
});
const NO_AWAIT = (claim: string): Proposed => ({
  file: 'src/orders/repository.ts',
  lines: { start: 8, end: 10 },
  severity: 'major',
  defect: 'correctness',
  claim,
  quote: "  mysqlPool.query('UPDATE orders SET status = ? WHERE id = ?', [status, id]);",
});

const FINDINGS: Record<string, Proposed[]> = {
  ada: [
    MYSQL('The orders service opens a MySQL pool; decision 0001 requires Postgres for every service.'),
    NO_AWAIT('setStatus does not await the UPDATE: callers return before the write and its errors are lost.'),
  ],
  grace: [
    MYSQL('A mysql2 pool is added for orders although the accepted record says no MySQL in services.'),
    {
      file: 'src/orders/routes.ts',
      lines: { start: 9, end: 9 },
      severity: 'major',
      decision: '0003',
      claim: 'The route divides totalCents by 100 and returns a float amount; money must stay in integer minor units.',
      quote: '  res.json(orders.map((o) => ({ ...o, total: o.totalCents / 100 })));',
    },
    {
      file: 'src/orders/repository.ts',
      lines: { start: 1, end: 1 },
      severity: 'minor',
      decision: '0004',
      claim: 'Sessions should be cached in Memcached per decision 0004.',
    },
  ],
  linus: [
    MYSQL('Switching orders to MySQL contradicts ADR 0001 (Postgres everywhere, one migration tool).'),
    NO_AWAIT('The UPDATE in setStatus is a floating promise: a failed write is never seen.'),
    {
      file: 'src/orders/db/mysqlPool.ts',
      lines: { start: 40, end: 44 },
      severity: 'minor',
      defect: 'style',
      claim: 'The pool options should be read from a config module.',
    },
  ],
};

const SCRIPT: ReviewerScript = {
  findings: (me) => FINDINGS[me] ?? [],
  vote: (me, label) => {
    if (/mysql/i.test(label)) return { vote: 'accept', confidence: 0.9, evidence: ['src/orders/db/mysqlPool.ts'] };
    if (/await|promise/i.test(label))
      return { vote: 'accept', confidence: 0.8, evidence: ['src/orders/repository.ts'] };
    if (/float|minor units|cents/i.test(label))
      return me === 'linus'
        ? { vote: 'reject', confidence: 0.6 }
        : { vote: 'accept', confidence: 0.7, evidence: ['src/orders/routes.ts'] };
    return { vote: 'reject', confidence: 0.7 };
  },
};

export const reviewServer = (): Promise<FakeOpenAI> =>
  startFakeOpenAI(reviewerResponder(SCRIPT), {
    models: REVIEWERS.map((r) => r.model),
    prefixCache: CACHE,
    prefixCachePerModel: true,
  });

export interface ReviewSide {
  calls: number;
  money: Money;
  /** Ours: findings by verdict; naive: findings reported, none checked. */
  findings: Record<string, number>;
  exit?: number;
  /** Ours: calls by who made them and what for, from the meeting's usage records. */
  byPurpose?: Record<string, number>;
  /** Ours: prompt + completion tokens of every call, by the eval's bill of a review (the meeting's log). */
  billedTokens?: number;
  /** Calls by what they asked, as the server saw them: proposal, ballot, their retries, other. */
  callsByKind: Record<string, number>;
  /** Cached share of the prompt tokens, by model. */
  cachedByModel: Record<string, number>;
  /** Cached share of the prompt tokens of the ballots (and their retries). */
  ballotsCached: number;
  /** Ours: findings reported without being verified (no verdict, or judged from fewer than the quorum). */
  unverified?: string[];
}

/** Calls by kind and each model's cached share, from what the server recorded. */
function serverCounts(fake: FakeOpenAI): Pick<ReviewSide, 'callsByKind' | 'cachedByModel' | 'ballotsCached'> {
  const callsByKind: Record<string, number> = {};
  const byModel: Record<string, { prompt: number; cached: number }> = {};
  const ballots = { prompt: 0, cached: 0 };
  for (const q of fake.requests) {
    if (!q.path.startsWith('/v1/chat/completions')) continue;
    const kind = reviewCallKind(q.body);
    callsByKind[kind] = (callsByKind[kind] ?? 0) + 1;
    for (const m of [
      (byModel[q.body.model ?? '?'] ??= { prompt: 0, cached: 0 }),
      ...(kind.startsWith('ballot') ? [ballots] : []),
    ]) {
      m.prompt += q.usage?.promptTokens ?? 0;
      m.cached += q.usage?.cachedTokens ?? 0;
    }
  }
  const share = (m: { prompt: number; cached: number }) => (m.prompt ? m.cached / m.prompt : 0);
  const cachedByModel = Object.fromEntries(Object.entries(byModel).map(([model, m]) => [model, share(m)]));
  return { callsByKind, cachedByModel, ballotsCached: share(ballots) };
}

/**
 * The findings a review reported unverified: any not refuted before the vote whose verdict is
 * INSUFFICIENT_EVIDENCE or that was judged from fewer positions (proposers and read votes) than the quorum.
 */
function unverifiedOf(s: MeetingState): string[] {
  const quorum = reviewQuorum(workersOf(s).length);
  return reviewOutcome(s, 'blocking').findings.flatMap((f) => {
    if (f.refuted !== undefined) return [];
    const read = Object.entries(votingRoundOf(s, f.id)?.ballots ?? {})
      .filter(([, b]) => b.votes.some((v) => v.option === f.id && !v.unread))
      .map(([w]) => w);
    const positions = new Set([...(f.proposedBy ?? []), ...read]).size;
    return f.verdict === 'INSUFFICIENT_EVIDENCE' || positions < quorum
      ? [`${f.id} (${f.verdict}, ${positions} of ${quorum})`]
      : [];
  });
}

/** The panel of our side: the assistant on the first reviewer's model, as the automatic panel choice does. */
export const PANEL: Participant[] = [
  { name: 'sam', role: 'assistant', provider: 'openai', model: REVIEWERS[0]!.model },
  ...REVIEWERS.map((r) => ({ ...r, role: 'worker' as const, provider: 'openai' as const })),
];

export const TOPIC = 'Review this change against the accepted decision records';

export async function runOurs(repo: ReviewRepo): Promise<ReviewSide> {
  const fake = await reviewServer();
  try {
    const events: MeetingEvent[] = [];
    const state = await withDaemon(async (d) => {
      // The daemon runs in this process: on a loaded machine its first handshake waits for modules to load.
      const conn = await connectDaemon(d.port, d.token, { handshakeTimeoutMs: 120_000 });
      try {
        const r = await convene(
          conn.meetings,
          {
            topic: TOPIC,
            mode: 'consensus',
            participants: PANEL,
            providers: { baseURL: fake.baseURL },
            workspace: repo.root,
            review: { base: 'main' },
          },
          { onEvent: (e) => events.push(e) },
        );
        return r.state;
      } finally {
        await conn.close();
      }
    });
    const byPurpose: Record<string, number> = {};
    for (const c of callsOf(events)) {
      // A worker's round-0 call is its proposal, a later one its ballot.
      const key = `${c.role} ${c.role === 'worker' ? (c.round === 0 ? 'proposal' : 'ballot') : c.purpose}`;
      byPurpose[key] = (byPurpose[key] ?? 0) + 1;
    }
    const outcome = reviewOutcome(state, 'blocking');
    const findings: Record<string, number> = {};
    for (const f of outcome.findings) findings[f.verdict] = (findings[f.verdict] ?? 0) + 1;
    const money = moneyOf(fake.requests, () => 0);
    const billedTokens = reviewBills(events, PANEL).review.billedTokens;
    // One bill: the meeting's log and the server's own records must say the same.
    if (billedTokens !== money.promptTokens + money.completionTokens)
      throw new Error(
        `the review's log bills ${billedTokens} tokens, the server counted ${money.promptTokens + money.completionTokens}`,
      );
    return {
      calls: chatCalls(fake),
      money,
      findings,
      exit: outcome.exit,
      byPurpose,
      billedTokens,
      ...serverCounts(fake),
      unverified: unverifiedOf(state),
    };
  } finally {
    await fake.close();
  }
}

/** Each model alone on the whole change, one call each, in turn; the reports concatenated. */
async function runNaive(repo: ReviewRepo): Promise<ReviewSide> {
  const fake = await reviewServer();
  try {
    const provider = new OpenAIProvider({ baseURL: fake.baseURL });
    const records = Object.entries(DECISIONS)
      .map(([file, text]) => `--- ${file}\n${text}`)
      .join('\n');
    for (const r of REVIEWERS) {
      const messages: ChatMessage[] = [
        {
          role: 'system',
          content: `You are ${r.name}, a senior code reviewer. Review the change against the team's decision records (only accepted ones count) and for defects.`,
        },
        {
          role: 'user',
          content:
            `Decision records:\n${records}\n\nThe change:\n${repo.diff}\n\n` +
            'Reply with one JSON object: {"findings": [{"file", "lines": {"start", "end"} (new side), "severity": blocking | major | minor | note, "decision" or "defect", "claim", "quote"}]}',
        },
      ];
      await provider.chat({
        model: r.model,
        messages,
        maxTokens: 2_000,
        signal: new AbortController().signal,
        meta: { participant: r.name, role: 'worker', purpose: 'turn', round: 0, topic: 'review' },
      });
    }
    const count = REVIEWERS.reduce((n, r) => n + (FINDINGS[r.name]?.length ?? 0), 0);
    return {
      calls: chatCalls(fake),
      money: moneyOf(fake.requests, () => 0),
      // The concatenated reports: every finding as each model wrote it, none checked or voted on.
      findings: { unchecked: count },
      ...serverCounts(fake),
    };
  } finally {
    await fake.close();
  }
}

export interface ReviewBench {
  addedLines: number;
  files: number;
  ours: ReviewSide;
  naive: ReviewSide;
  /** ours / naive in money, by price table. */
  costRatio: Record<string, number>;
  /** ours / naive billed tokens (prompt + completion). */
  tokenRatio: number;
}

export async function benchReview(): Promise<ReviewBench> {
  const repo = await reviewRepo();
  const ours = await runOurs(repo);
  const naive = await runNaive(repo);
  const billed = (m: Money) => m.promptTokens + m.completionTokens;
  return {
    addedLines: repo.addedLines,
    files: repo.files,
    ours,
    naive,
    costRatio: Object.fromEntries(
      PRICES.map((p) => [p.name, +((ours.money.usd[p.name] ?? 0) / (naive.money.usd[p.name] || 1)).toFixed(3)]),
    ),
    tokenRatio: +((ours.billedTokens ?? billed(ours.money)) / Math.max(1, billed(naive.money))).toFixed(2),
  };
}
