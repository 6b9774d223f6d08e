/**
 * The calls a review makes (issue 42), counted on the loopback server by what each asks, with the
 * real CLI on real temporary repositories: no briefing and no digest call; each reviewer's own
 * findings are its accepts, never put to it; a finding every reviewer proposed, or one the votes
 * before already proved, is put to nobody; a reviewer with nothing to vote on makes no call; a
 * ballot continues its reviewer's findings conversation (the same first bytes, served from the
 * cache); and the quorum still makes a review exit 3 when the votes it needs could not be read.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { Finding } from '@roundtable/protocol';
import { lastUserMessage, type Behaviour, type ChatBody, type RecordedRequest } from '../fakes/openaiServer';
import { MYSQL_POOL, reviewResponder, reviewSuite, type ReviewRepo } from '../fakes/reviewRepo';
import { ballotFindings, reviewCallKind, reviewerResponder, type ReviewerScript } from '../fakes/reviewers';

type Proposed = Omit<Finding, 'proposedBy' | 'refuted'>;

/** The breach of decision 0001 on the pool's line, in each reviewer's words. */
const POOL = (me: string): Proposed => ({
  file: 'services/orders/db.ts',
  lines: { start: 2, end: 2 },
  severity: 'blocking',
  decision: '0001',
  claim: `A MySQL pool in the orders service, where decision 0001 says Postgres for every service (${me}).`,
  quote: "export const pool = mysql.createPool({ host: 'db', database: 'orders' });",
});
/** A finding only grace sees. */
const IMPORT: Proposed = {
  file: 'services/orders/db.ts',
  lines: { start: 1, end: 1 },
  severity: 'minor',
  defect: 'naming',
  claim: 'The default import is named after the driver, not what it is used for.',
};

/** Who is asked (the system message names the seat), and what. */
const seat = (body: ChatBody) => /^You are (\w+)/.exec(body.messages?.[0]?.content ?? '')?.[1] ?? '?';

interface Report {
  exit: number;
  why?: string;
  findings: {
    id: string;
    decision?: string;
    defect?: string;
    verdict: string;
    proposedBy?: string[];
    votes?: { worker: string; vote: string; rationale: string }[];
  }[];
}

describe('the calls a review makes', () => {
  const s = reviewSuite();

  /** A change that adds the MySQL pool decision 0001 forbids, reviewed by reviewers answering as `respond` says. */
  async function review(respond: (body: ChatBody) => Behaviour) {
    const r: ReviewRepo = await s.repo();
    await r.write('services/orders/db.ts', MYSQL_POOL);
    r.git('add', '.');
    r.git('commit', '-qm', 'orders: a database pool');
    const from = s.fake().requests.length;
    s.fake().setResponder(respond);
    try {
      const res = await s.review(r, ['--json']);
      const calls = s
        .fake()
        .requests.slice(from)
        .filter((q) => q.path.startsWith('/v1/chat/completions'));
      return { res, report: JSON.parse(res.stdout || '{}') as Report, calls };
    } finally {
      s.fake().setResponder(reviewResponder);
    }
  }

  const kinds = (calls: RecordedRequest[]) => {
    const out: Record<string, number> = {};
    for (const c of calls) out[reviewCallKind(c.body)] = (out[reviewCallKind(c.body)] ?? 0) + 1;
    return out;
  };
  const of = (calls: RecordedRequest[], who: string, kind: string) =>
    calls.filter((c) => seat(c.body) === who && reviewCallKind(c.body) === kind);

  describe('three reviewers: all propose the pool, grace also a naming finding', () => {
    const findings: Record<string, Proposed[]> = {
      ada: [POOL('ada')],
      grace: [POOL('grace'), IMPORT],
      linus: [POOL('linus')],
    };
    const script: ReviewerScript = {
      findings: (me) => findings[me] ?? [],
      vote: () => ({ vote: 'accept', confidence: 0.9, evidence: ['services/orders/db.ts'] }),
    };
    let run: Awaited<ReturnType<typeof review>>;
    before(async () => {
      run = await review(reviewerResponder(script));
    });
    const pool = () => run.report.findings.find((f) => f.decision === '0001');
    const naming = () => run.report.findings.find((f) => f.defect === 'naming');
    const ballots = () => run.calls.filter((q) => reviewCallKind(q.body) === 'ballot');

    it('proves both findings (exit 1) with three proposals and one ballot: no briefing, no digest, nothing else', () => {
      assert.equal(run.res.code, 1, run.res.stderr);
      assert.equal(pool()?.verdict, 'PROVEN', run.res.stdout);
      assert.deepEqual(pool()?.proposedBy, ['ada', 'grace', 'linus']);
      assert.equal(naming()?.verdict, 'PROVEN', run.res.stdout);
      assert.deepEqual(kinds(run.calls), { proposal: 3, ballot: 1 });
    });

    it('never puts a finding to a reviewer who proposed it', () => {
      assert.ok(ballots().length > 0);
      for (const c of ballots())
        for (const f of ballotFindings(lastUserMessage(c.body)))
          assert.ok(
            !(/proposed by: (.*)/.exec(f.label)?.[1]?.split(', ') ?? []).includes(seat(c.body)),
            `${seat(c.body)} was asked about its own ${f.id}`,
          );
    });

    it('puts the finding every reviewer proposed to nobody', () => {
      for (const c of ballots())
        assert.ok(
          !ballotFindings(lastUserMessage(c.body)).some((f) => f.id === pool()?.id),
          `${seat(c.body)} was asked about ${pool()?.id}`,
        );
    });

    it('asks nothing of a reviewer with nothing to vote on, nor of one whose vote could change no verdict', () => {
      // grace proposed every finding there was; once ada accepted grace's finding (two of three),
      // linus's vote could not change its verdict: neither made a call after its proposal.
      assert.equal(of(run.calls, 'grace', 'ballot').length, 0, 'grace');
      assert.equal(of(run.calls, 'linus', 'ballot').length, 0, 'linus');
      const [ballot] = of(run.calls, 'ada', 'ballot');
      assert.deepEqual(
        ballotFindings(ballot ? lastUserMessage(ballot.body) : '').map((f) => f.id),
        [naming()?.id],
        "ada voted on grace's finding alone",
      );
    });
  });

  it("starts a reviewer's ballot with the bytes of its findings call: the same system message, change and records", async () => {
    const script: ReviewerScript = {
      findings: (me) => (me === 'grace' ? [POOL(me), IMPORT] : [POOL(me)]),
      vote: () => ({ vote: 'accept', confidence: 0.9, evidence: ['services/orders/db.ts'] }),
    };
    const { res, calls } = await review(reviewerResponder(script));
    assert.equal(res.code, 1, res.stderr);
    const [proposal] = of(calls, 'ada', 'proposal');
    const [ballot] = of(calls, 'ada', 'ballot');
    assert.ok(proposal && ballot, 'ada proposed and voted');
    const first = proposal.body.messages ?? [];
    const then = ballot.body.messages ?? [];
    assert.deepEqual(
      then.slice(0, first.length),
      first,
      'the ballot continues the findings conversation byte for byte',
    );
    assert.ok(JSON.stringify(first).includes('mysql.createPool'), 'the diff is in the shared prefix');
    assert.deepEqual(
      then.slice(first.length).map((m) => m.role),
      ['assistant', 'user'],
    );
  });

  it('puts only the contested finding to a challenge round, to those who did not propose it; the proven one keeps its verdict', async () => {
    const script: ReviewerScript = {
      findings: (me) => (me === 'grace' ? [POOL(me), IMPORT] : [POOL(me)]),
      // The naming finding is rejected without evidence: neither proven nor refuted, it stays CONTESTED.
      vote: () => ({ vote: 'reject', confidence: 0.9, rationale: 'The name is conventional here.' }),
    };
    const { res, report, calls } = await review(reviewerResponder(script));
    assert.equal(res.code, 1, res.stderr);
    const pool = report.findings.find((f) => f.decision === '0001');
    const naming = report.findings.find((f) => f.defect === 'naming');
    assert.equal(pool?.verdict, 'PROVEN');
    assert.equal(naming?.verdict, 'CONTESTED');
    // The pool's votes are those of the vote that judged it: the three proposals, never asked again.
    assert.deepEqual(
      pool?.votes?.map((v) => [v.worker, v.vote, v.rationale]),
      ['ada', 'grace', 'linus'].map((w) => [w, 'accept', 'proposed this finding']),
    );
    const ballots = calls.filter((q) => reviewCallKind(q.body) === 'ballot');
    const challenges = ballots.filter((q) => /This is challenge round \d+\./.test(lastUserMessage(q.body)));
    // The first vote and both challenge rounds each ask ada and linus about the naming finding alone.
    assert.deepEqual(
      ballots.map((q) => [seat(q.body), ballotFindings(lastUserMessage(q.body)).map((f) => f.id)]),
      [0, 1, 2].flatMap(() => [
        ['ada', [naming?.id]],
        ['linus', [naming?.id]],
      ]),
    );
    assert.equal(challenges.length, 4);
  });

  it('exits 3 when two of three reviewers cannot give a readable vote on a finding only the third proposed: asked once more, never read as clean', async () => {
    const unreadable = (body: ChatBody) => {
      const kind = reviewCallKind(body);
      if (kind === 'ballot' || kind === 'ballot retry')
        // Votes naming no finding by its id, as the issue met them: nothing in them can be counted.
        return { text: JSON.stringify({ votes: [{ option: 'the pool', verdict: 'maybe' }] }) };
      return reviewerResponder({ findings: (me) => (me === 'ada' ? [POOL(me)] : []) })(body);
    };
    const { res, report, calls } = await review(unreadable);
    assert.equal(res.code, 3, res.stderr);
    const why = res.stderr.split('\n').filter((l) => l.startsWith('roundtable: could not review'));
    assert.equal(why.length, 1, res.stderr);
    assert.match(why[0] ?? '', /grace, linus/);
    assert.match(report.why ?? '', /grace, linus/);
    // ada is never asked about its own finding; the other two are asked, and asked once more.
    assert.equal(of(calls, 'ada', 'ballot').length, 0);
    for (const who of ['grace', 'linus']) {
      assert.equal(of(calls, who, 'ballot').length, 1, who);
      assert.equal(of(calls, who, 'ballot retry').length, 1, who);
    }
  });

  it('exits 3 when two of three reviewers fail their ballot calls on a finding only the third proposed', async () => {
    const failing = (body: ChatBody) =>
      reviewCallKind(body) === 'ballot'
        ? { status: 500 }
        : reviewerResponder({ findings: (me) => (me === 'ada' ? [POOL(me)] : []) })(body);
    const { res, report } = await review(failing);
    assert.equal(res.code, 3, res.stderr);
    assert.match(report.why ?? '', /ballot in round 1 failed/);
  });

  it('estimates the same plan: the proposals and the ballots, no briefing and no digest', async () => {
    const r = await s.repo();
    await r.write('services/orders/db.ts', MYSQL_POOL);
    r.git('add', '.');
    r.git('commit', '-qm', 'orders: a database pool');
    const from = s.fake().requests.length;
    const res = await s.review(r, ['--estimate', '--json']);
    assert.equal(res.code, 0, res.stderr);
    const e = JSON.parse(res.stdout) as {
      opening: { calls: number };
      rounds: { round: number; calls: number }[];
      closing: { calls: number };
    };
    assert.equal(e.opening.calls, 3, 'one proposal per reviewer, no briefing');
    assert.equal(e.rounds[0]?.calls, 3, "every reviewer votes on the others' findings (the upper figure)");
    assert.equal(e.closing.calls, 0, 'no digest call');
    const text = await s.review(r, ['--estimate']);
    assert.equal(text.code, 0, text.stderr);
    const rows = text.stdout.split('\n').map((l) => l.trim().split(/\s+/)[0]);
    assert.ok(rows.includes('proposals') && rows.includes('vote'), text.stdout);
    assert.ok(!rows.includes('digest') && !rows.includes('opening'), text.stdout);
    assert.equal(s.fake().requests.length, from, 'no model was asked');
  });
});
