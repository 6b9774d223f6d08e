/**
 * The review's readers as models meet them (issue 39): a severity maps by its own scale, never
 * silently to the lowest; a path is matched on its repository-relative form against the real and
 * the shown name; findings are read however they are listed; one bad vote costs that vote; and
 * what could not be counted is exit 3 by the quorum, never a clean pass.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { EventBody, Finding, OptionVote, ReviewScope } from '@roundtable/protocol';
import { findingLabel, reviewOutcome, reviewQuorum } from '@roundtable/protocol';
import { readsOutOfTen, severityOf } from '../../daemon/src/meeting/reviewSeverity';
import { refutation, reviewOptions } from '../../daemon/src/meeting/reviewFindings';
import { changedFileOf } from '../../daemon/src/review/findingPlace';
import { MAX_FINDINGS_PER_REVIEWER, readFindings } from '../../daemon/src/meeting/reviewReply';
import type { ReviewReadContext } from '../../daemon/src/meeting/reviewFinding';
import { parseBallot } from '../../daemon/src/meeting/votes';
import { ballotReply } from '../../daemon/src/meeting/modes/consensus/replySchemas';
import { proposalVote } from '../../daemon/src/meeting/modes/consensus/review';
import { given, opened } from '../fakes/given';

const scope: ReviewScope = {
  changed: [
    { file: 'src/db.ts', ranges: [{ start: 1, end: 20 }] },
    { file: 'a/x.ts', ranges: [{ start: 1, end: 5 }] },
    { file: 'docs/re\u200Bport.md', ranges: [{ start: 1, end: 3 }], shown: 'docs/report.md' },
  ],
  decisions: [
    { id: '0001', title: 'Postgres', path: 'docs/decisions/0001-postgres.md', status: 'accepted' },
    { id: '0002', title: 'SQLite', path: 'docs/decisions/0002-sqlite.md', status: 'superseded' },
  ],
};
const ctx: ReviewReadContext = { changed: scope.changed, decisions: ['0001', '0002'], root: '/home/me/repo' };
const read = (reply: string, c = ctx) => readFindings(reply, c);
const findings = (reply: string, c = ctx) => {
  const r = read(reply, c);
  return r.read === 'none' ? undefined : r.findings;
};

describe('severity by its own scale', () => {
  const sev = (fields: Record<string, unknown>, heads: string[] = []) => severityOf(fields, heads).severity;
  it('four steps map step for step, three steps top to top, emoji by colour, tags in a title', () => {
    const table: [Record<string, unknown>, string][] = [
      [{ severity: 'critical' }, 'blocking'],
      [{ severity: 'High' }, 'major'],
      [{ severity: 'MEDIUM' }, 'minor'],
      [{ severity: 'low' }, 'note'],
      [{ priority: 'P0' }, 'blocking'],
      [{ priority: 'P1' }, 'major'],
      [{ priority: 'p2' }, 'minor'],
      [{ priority: 'P3' }, 'note'],
      [{ priority: 0 }, 'blocking'],
      [{ priority: 1 }, 'major'],
      [{ level: 'error' }, 'blocking'],
      [{ level: 'warning' }, 'major'],
      [{ level: 'info' }, 'note'],
      [{ severity: '🔴 Critical' }, 'blocking'],
      [{ severity: '🟠' }, 'major'],
      [{ severity: '🟡 Medium' }, 'minor'],
      [{ severity: '🟢' }, 'note'],
      [{ severity: 'nit' }, 'note'],
    ];
    for (const [fields, want] of table) assert.equal(sev(fields), want, JSON.stringify(fields));
    assert.equal(sev({}, ['[P1] Close the pool']), 'major', 'a Codex title tag');
    assert.equal(sev({}, ['**[P0]** Data loss']), 'blocking');
  });

  it('a word on no scale, or none at all, reads blocking and says it was not known', () => {
    assert.deepEqual(severityOf({ severity: 'urgent-ish' }, []), {
      severity: 'blocking',
      known: false,
      written: 'urgent-ish',
    });
    assert.deepEqual(severityOf({}, ['Pool never closed']), { severity: 'blocking', known: false });
    for (const n of [0, 11, 0.5, -3])
      assert.deepEqual(severityOf({ severity: n }, [], true), {
        severity: 'blocking',
        known: false,
        written: String(n),
      });
  });

  it('a number out of 10 by the CVSS bands, when the reply shows its scale is out of 10 (recorded Llama/Claude/GPT-4o replies)', () => {
    const ten = (fields: Record<string, unknown>) => severityOf(fields, [], true);
    const table: [Record<string, unknown>, string][] = [
      [{ severity_level: 10 }, 'blocking'],
      [{ severity_level: 9 }, 'blocking'],
      [{ severity: 8 }, 'major'],
      [{ severity: 7 }, 'major'],
      [{ severity_level: 6 }, 'minor'],
      [{ severityLevel: 4 }, 'minor'],
      [{ severity: 3 }, 'note'],
      [{ severity_level: 1 }, 'note'],
      // Codex's integer priority keeps its own four steps.
      [{ priority: 3 }, 'note'],
    ];
    for (const [fields, want] of table) assert.equal(ten(fields).severity, want, JSON.stringify(fields));
    // Gito asks 1 = Critical … 5 = Suggestion: a number up to 5 does not say which way it runs.
    assert.equal(readsOutOfTen([{ severity: 3 }, { severity_level: 4 }]), false);
    assert.equal(readsOutOfTen([{ severity: 3 }, { severity_level: 6 }]), true);
    assert.equal(readsOutOfTen([{ severity: 3 }, { severity: 60 }]), false, 'a number above 10 is on another scale');
    assert.equal(readsOutOfTen([{ priority: 7 }]), false, "Codex's priority is no severity number");
    assert.deepEqual(severityOf({ severity: 1 }, []), { severity: 'blocking', known: false, written: '1' });
    assert.deepEqual(severityOf({ severity: 4, impact: 'medium' }, []), { severity: 'minor', known: true });
  });
});

describe('paths matched on their repository-relative form', () => {
  it('absolute inside the root, ./, b/, backslashes, file:// all name the changed file', () => {
    for (const p of [
      '/home/me/repo/src/db.ts',
      './src/db.ts',
      'b/src/db.ts',
      'a/src/db.ts',
      'src\\db.ts',
      'file:///home/me/repo/src/db.ts',
      'src//db.ts',
    ])
      assert.equal(changedFileOf(p, scope, ctx.root)?.file, 'src/db.ts', p);
  });

  it('a real folder named a/ is kept; a made-up root is matched by the one file it ends with; anything else is not in the change', () => {
    assert.equal(changedFileOf('a/x.ts', scope, ctx.root)?.file, 'a/x.ts');
    assert.equal(changedFileOf('/mnt/z/Project/app/src/db.ts', scope, ctx.root)?.file, 'src/db.ts');
    assert.equal(changedFileOf('/etc/passwd', scope, ctx.root), undefined);
    assert.equal(changedFileOf('../repo/src/db.ts', scope, ctx.root), undefined);
    const two = { changed: [{ file: 'a/db.ts' }, { file: 'b/db.ts' }] };
    assert.equal(changedFileOf('/x/y/db.ts', two), undefined, 'no guess between two files');
  });

  it('a finding on the name the reviewers were shown is on the real file, recorded under it', () => {
    const f: Finding = { file: 'docs/report.md', lines: { start: 2, end: 2 }, severity: 'minor', claim: 'typo' };
    assert.equal(refutation(f, scope), undefined);
    const [o] = reviewOptions([['ada', [f]]], scope);
    assert.equal(o?.finding?.file, 'docs/re\u200Bport.md');
    assert.equal(refutation({ ...f, file: 'docs/other.md' }, scope), 'docs/other.md is not in the change');
  });
});

describe('findings however they are listed', () => {
  it('grouped by file, as an object or a list of groups; a comments list beside an empty findings list', () => {
    const grouped = findings('{"src/db.ts": [{"line": 3, "severity": "high", "issue": "No timeout."}]}');
    assert.deepEqual(
      grouped?.map((f) => [f.file, f.lines.start, f.severity, f.claim]),
      [['src/db.ts', 3, 'major', 'No timeout.']],
    );
    const groups = findings('[{"file": "src/db.ts", "findings": [{"lines": "4-6", "message": "Leak."}]}]');
    assert.deepEqual(
      groups?.map((f) => [f.file, f.lines]),
      [['src/db.ts', { start: 4, end: 6 }]],
    );
    const files = findings('{"files": [{"path": "a/x.ts", "issues": [{"line": 2, "body": "Name."}]}]}');
    assert.equal(files?.[0]?.file, 'a/x.ts');
    const kaizen = findings(
      '{"code_quality_percentage": 60, "review": [{"file_name": "src/db.ts", "start_line": 3, "end_line": 4, "comment": "x", "severity_level": 7}]}',
    );
    assert.deepEqual(
      kaizen?.map((f) => [f.file, f.lines, f.severity]),
      [['src/db.ts', { start: 3, end: 4 }, 'major']],
    );
    const beside = findings('{"findings": [], "comments": [{"path": "src/db.ts", "line": 9, "body": "Unchecked."}]}');
    assert.equal(beside?.length, 1, 'the comments list is read, the empty list beside it is not the whole review');
  });

  it('the decision as rule_id, ADR-0001, or only in the prose (accepted records first); a rule id that is no decision is a defect', () => {
    const one = (extra: string) =>
      findings(`[{"file": "src/db.ts", "line": 2, ${extra}}]`)?.[0] ?? ({} as Partial<Finding>);
    assert.equal(one('"rule_id": "ADR-0001", "message": "x"').decision, 'ADR-0001');
    assert.equal(one('"rule_id": "security/sql-injection", "message": "x"').defect, 'security/sql-injection');
    assert.equal(one('"message": "Unlike 0002, decision 0001 says Postgres."').decision, '0001');
    assert.equal(one('"message": "The pool leaks."').decision, undefined);
  });

  it('lines as {old, new}, "L12", "12-14", in the file name; no file when one file changed; a lone finding; <answer> tags', () => {
    assert.deepEqual(findings('[{"file": "src/db.ts", "lines": {"old": 3, "new": 7}, "claim": "x"}]')?.[0]?.lines, {
      start: 7,
      end: 7,
    });
    assert.deepEqual(findings('[{"file": "src/db.ts:12-14", "claim": "x"}]')?.[0]?.lines, { start: 12, end: 14 });
    const placed = findings(
      '[{"where": "src/db.ts:3-5", "problem": "x"}, {"files": ["src/db.ts:9", "src/other.ts:1"], "details": "y"}]',
    );
    assert.deepEqual(
      placed?.map((f) => [f.file, f.lines]),
      [
        ['src/db.ts', { start: 3, end: 5 }],
        ['src/db.ts', { start: 9, end: 9 }],
      ],
      'a place under where, and the first of a files list (recorded agent reviews)',
    );
    const one = { ...ctx, changed: [{ file: 'src/db.ts' }] };
    assert.equal(
      findings('[{"where": "the database module", "line": 4, "problem": "x"}]', one)?.[0]?.file,
      'src/db.ts',
      'prose under where names no file: the one changed file is it, not "the database module"',
    );
    assert.deepEqual(findings('[{"filePath": "src/db.ts", "lineNumbers": "12-14", "title": "x"}]')?.[0]?.lines, {
      start: 12,
      end: 14,
    });
    const single = { ...ctx, changed: [{ file: 'src/db.ts' }] };
    assert.equal(findings('[{"line": "L4", "description": "x"}]', single)?.[0]?.file, 'src/db.ts');
    assert.equal(findings('{"file": "src/db.ts", "line": 3, "issue": "alone"}')?.[0]?.claim, 'alone');
    const tagged = findings(
      '<think>two issues?</think>\n<answer>\n{"findings": [{"file": "src/db.ts", "line": 5, "claim": "x"}]}\n</answer>',
    );
    assert.equal(tagged?.length, 1);
  });

  it("Gito's affected_lines: the first place named is the finding's lines (recorded Qwen3.6 report)", () => {
    const gito = findings(
      '{"issues": {"src/db.ts": [{"title": "Typo", "details": "x", "severity": 1, "affected_lines": [{"start_line": 4, "end_line": 6}, {"start_line": 9, "end_line": 9}]}]}}',
    );
    assert.deepEqual(
      gito?.map((f) => [f.file, f.lines, f.severity, f.severityWritten]),
      [['src/db.ts', { start: 4, end: 6 }, 'blocking', '1']],
    );
  });

  it('clean only when said: [], "LGTM", "No issues found"; a LGTM with a but, or prose, is no review', () => {
    for (const clean of [
      '[]',
      '```json\n[]\n```',
      'LGTM',
      'No issues found.',
      'Looks good to me! 👍',
      '{"findings": []}',
    ])
      assert.deepEqual(read(clean), { read: 'complete', findings: [] }, clean);
    for (const not of ['LGTM, but the pool on line 2 leaks.', 'The change adds a pool.', 'See [1] for details.', ''])
      assert.equal(read(not).read, 'none', not);
  });

  it('over the cap of findings a reviewer puts forward, the most severe stay: thirty nits never push out the breach written last', () => {
    const nit = (n: number) => ({ file: 'src/db.ts', line: n, severity: 'nit', claim: `Nit ${n}: a name.` });
    const breach = { file: 'src/db.ts', line: 12, severity: 'blocking', decision: '0001', claim: 'A MySQL pool.' };
    const list = [...Array.from({ length: MAX_FINDINGS_PER_REVIEWER + 5 }, (_, i) => nit(i + 1)), breach];
    const got = findings(JSON.stringify({ findings: list })) ?? [];
    assert.equal(got.length, MAX_FINDINGS_PER_REVIEWER);
    assert.deepEqual(
      got.filter((f) => f.severity === 'blocking').map((f) => f.claim),
      ['A MySQL pool.'],
    );
    // The rest are kept where the reviewer wrote them: the first nits, the breach last.
    assert.equal(got[0]?.claim, 'Nit 1: a name.');
    assert.equal(got.at(-1)?.claim, 'A MySQL pool.');
  });

  it('a list cut by the token cap keeps the complete findings and is partial, never a whole review', () => {
    const whole =
      '{"findings": [{"file": "src/db.ts", "line": 2, "claim": "first"}, {"file": "src/db.ts", "line": 8, "claim": "sec';
    const r = readFindings(whole, ctx, { cut: true });
    assert.equal(r.read, 'partial');
    assert.deepEqual(r.read === 'partial' && [r.findings.map((f) => f.claim), r.why], [
      ['first'],
      'it was cut off by the token cap after 1 finding',
    ]);
  });
});

describe('ballots as models write them', () => {
  const options = [
    { id: 'O1', label: 'a finding' },
    { id: 'O2', label: 'another' },
  ];
  const ok = (reply: string) => {
    const r = parseBallot(reply, options);
    assert.ok(r.ok, r.ok ? '' : r.reason);
    return r;
  };

  it('accept: true, a score out of 10, reasoning, votes keyed by number, evidence as a location object', () => {
    const r = ok(
      JSON.stringify({
        votes: {
          '1': { accept: true, score: 9, reasoning: 'Holds.', evidence: { path: 'src/db.ts', line: 2 } },
          '2': { accept: false, confidence: 7, reason: 'Not in the change.' },
        },
      }),
    );
    assert.deepEqual(
      r.votes.map((v) => [v.option, v.vote, v.confidence, v.rationale]),
      [
        ['O1', 'accept', 0.9, 'Holds.'],
        ['O2', 'reject', 0.7, 'Not in the change.'],
      ],
    );
    assert.deepEqual(r.votes[0]?.evidence, [{ file: 'src/db.ts', section: 'line 2', status: 'unchecked' }]);
  });

  it('a vote that cites its decision under "decision" is read by its boolean; an unknown vote word is no vote', () => {
    const r = ok(
      '{"votes": [{"option": "O1", "decision": "0001", "accept": true, "confidence": 0.8, "reasoning": "r"}]}',
    );
    assert.equal(r.votes[0]?.vote, 'accept');
    const maybe = parseBallot(
      '{"votes": [{"option": "O1", "vote": "maybe", "accept": true, "confidence": 0.8, "rationale": "r"}]}',
      options,
    );
    assert.equal(maybe.ok, false);
  });

  it('one ballot, one scale: a 9 beside an 85 is 9%, "9/10" is 0.9', () => {
    const r = ok(
      JSON.stringify({
        votes: [
          { option: 'O1', vote: 'accept', confidence: 85, rationale: 'a' },
          { option: 'O2', vote: 'reject', confidence: 9, rationale: 'b', uncertainty: 'unsure' },
        ],
      }),
    );
    assert.deepEqual(
      r.votes.map((v) => v.confidence),
      [0.85, 0.09],
    );
    assert.equal(
      ok('{"votes": [{"option": 1, "vote": "yes", "confidence": "9/10", "rationale": "c"}]}').votes[0]?.confidence,
      0.9,
    );
  });

  it('one bad vote costs that vote, not the ballot: the other is kept, the bad one unread with why', () => {
    const r = ok(
      JSON.stringify({
        votes: [
          { option: 'O1', vote: 'accept', confidence: 0.9, rationale: 'holds' },
          { option: 'O2', vote: 'perhaps', confidence: 0.9, rationale: '?' },
        ],
      }),
    );
    assert.deepEqual(r.votes[0]?.vote, 'accept');
    assert.deepEqual([r.votes[1]?.vote, r.votes[1]?.unread], ['abstain', true]);
    assert.match(r.problems[0] ?? '', /votes\[1\]\.vote must be accept, reject or abstain, got "perhaps"/);
  });

  it("the ballot's schema names the ballot's option ids as an enum", () => {
    const schema = ballotReply(['O1', 'O3']).schema as {
      properties: { votes: { items: { properties: { option: { enum: string[] } } } } };
    };
    assert.deepEqual(schema.properties.votes.items.properties.option.enum, ['O1', 'O3']);
  });
});

describe('the quorum: what was not counted is exit 3, never 0', () => {
  const breach: Finding = {
    file: 'src/db.ts',
    lines: { start: 2, end: 2 },
    severity: 'blocking',
    decision: '0001',
    claim: 'MySQL pool',
    proposedBy: ['ada'],
  };
  const note: Finding = { ...breach, severity: 'note', decision: undefined, defect: 'naming', claim: 'Name.' };
  const read = (option: string, vote: OptionVote['vote'] = 'accept'): OptionVote => ({
    option,
    vote,
    confidence: 0.9,
    rationale: 'r',
    evidence: [{ file: 'src/db.ts', status: 'exists' }],
  });
  const unread = (option: string): OptionVote => ({ ...read(option, 'abstain'), confidence: 0, unread: true });
  /** A review with ada and grace (quorum 2), one round with these ballots, closed with these verdicts. */
  function closed(options: Finding[], ballots: Record<string, OptionVote[]>) {
    const ids = options.map((_, i) => `O${i + 1}`);
    const events: EventBody[] = [
      ...opened({ mode: 'consensus' }),
      {
        type: 'options_set',
        options: options.map((f, i) => ({ id: ids[i] ?? '', label: findingLabel(f), finding: f })),
        source: 'proposed',
      },
      { type: 'round_started', round: 1, speakers: Object.keys(ballots), final: true },
      ...Object.entries(ballots).map(([worker, votes]): EventBody => ({
        type: 'ballot_recorded',
        round: 1,
        worker,
        votes,
        valid: true,
        retried: false,
        tokens: 1,
      })),
      {
        type: 'verdict_computed',
        round: 1,
        results: ids.map((option) => ({
          option,
          verdict: 'PROVEN',
          accept: 1,
          reject: 0,
          abstain: 0,
          weightedAccept: 1,
          weightedReject: 0,
          evidenceFor: 1,
          evidenceAgainst: 0,
        })),
        actualConsensus: 1,
        consensusThreshold: 0.8,
        conflicts: [],
        reasons: [],
        final: true,
      },
      { type: 'meeting_closed', reason: 'verdict_reached' },
    ];
    return given(...events);
  }

  it('is more than half the panel', () => {
    assert.deepEqual([1, 2, 3, 4, 5].map(reviewQuorum), [1, 2, 2, 3, 3]);
  });

  it('a blocking finding counted from one of two reviewers is below it: exit 3 naming who could not be read', () => {
    const out = reviewOutcome(closed([breach], { ada: [read('O1')], grace: [unread('O1')] }), 'blocking');
    assert.equal(out.exit, 3);
    assert.equal(
      out.why,
      'O1 (blocking, src/db.ts:2) was counted from 1 of 2 reviewers, below the quorum of 2: no readable vote from grace',
    );
  });

  it("a proposal counts as its reviewer's position; a finding below the bar needs no quorum", () => {
    assert.equal(reviewOutcome(closed([breach], { ada: [unread('O1')], grace: [read('O1')] }), 'blocking').exit, 1);
    assert.equal(
      reviewOutcome(closed([{ ...note, proposedBy: [] }], { ada: [read('O1')], grace: [unread('O1')] }), 'blocking')
        .exit,
      0,
    );
  });

  it('votes asked and none read (a proposal is no vote read): exit 3 naming who was asked', () => {
    const proposed = (o: string): OptionVote => ({ ...read(o), proposed: true });
    const out = reviewOutcome(closed([breach], { ada: [proposed('O1')], grace: [unread('O1')] }), 'blocking');
    assert.equal(out.why, 'no ballot could be read (grace): the findings were not voted on');
  });

  it('no vote asked (every reviewer proposed the finding): counted from the proposals, exit 1', () => {
    const proposed = (o: string): OptionVote => ({ ...read(o), proposed: true });
    const both = { ...breach, proposedBy: ['ada', 'grace'] };
    const out = reviewOutcome(closed([both], { ada: [proposed('O1')], grace: [proposed('O1')] }), 'blocking');
    assert.equal(out.why, undefined);
    assert.equal(out.exit, 1);
  });

  it("a proposer's own finding is its accept, with the finding's lines as evidence", () => {
    assert.deepEqual(proposalVote({ id: 'O1', label: 'x', finding: breach }, breach), {
      option: 'O1',
      vote: 'accept',
      confidence: 0.8,
      rationale: 'proposed this finding',
      evidence: [{ file: 'src/db.ts', section: 'line 2', type: 'code', status: 'unchecked' }],
      proposed: true,
    });
  });
});
