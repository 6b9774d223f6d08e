import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { MeetingEvent } from '@roundtable/protocol';
import { fold } from '@roundtable/protocol';
import { systemClock } from '../../daemon/src/meeting/clock';
import { Meeting } from '../../daemon/src/meeting/engine';
import { evidenceChecker } from '../../daemon/src/meeting/evidence';
import { renderMinutes } from '@roundtable/protocol/minutes';
import { writeMinutes } from '@roundtable/client/minutesFile';
import { MANIFEST_KEYS } from '@roundtable/protocol/manifest';
import { OpenAIProvider } from '../../daemon/src/providers/openai';
import { ScriptedProvider, parseScript } from '../../daemon/src/providers/scripted';
import { SqliteStore } from '../../daemon/src/store/sqliteStore';
import { cli, ensureBuilt } from '../fakes/cli';
import { ballot, eventsOfType, panel, runMeeting } from '../fakes/meetings';
import { startFakeOpenAI, type ChatBody, type FakeOpenAI } from '../fakes/openaiServer';

let workspace: string;
before(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), 'rt-ws-'));
  await mkdir(path.join(workspace, 'src'));
  await writeFile(path.join(workspace, 'src', 'db.ts'), 'export const pool = 1;\n');
  await writeFile(path.join(workspace, 'BENCH.md'), '# numbers\n');
});

const consensus = (script: unknown, extra: Partial<Parameters<typeof runMeeting>[0]> = {}) =>
  runMeeting({
    mode: 'consensus',
    topic: 'Which database should the billing service use?',
    options: ['PostgreSQL', 'SQLite'],
    participants: panel(['ada', 'grace', 'linus'], false),
    script,
    deps: { checkEvidence: evidenceChecker(workspace) },
    ...extra,
  });

describe('consensus meetings on the scripted provider', () => {
  it('decides when the votes clear the threshold, and writes the report and manifest', async () => {
    const { state, events } = await consensus({
      replies: {
        ada: [ballot(['O1', 'accept', 0.95, ['src/db.ts']], ['O2', 'reject', 0.8])],
        grace: [ballot(['O1', 'accept', 0.9, ['BENCH.md']], ['O2', 'reject', 0.7])],
        linus: [ballot(['O1', 'accept', 0.9], ['O2', 'abstain', 0])],
      },
    });
    assert.equal(state.closed?.reason, 'verdict_reached');
    assert.equal(state.rounds.length, 1, 'no challenge round needed');
    const verdict = eventsOfType(events, 'verdict_computed')[0];
    assert.equal(verdict?.decision, 'O1');
    assert.equal(verdict?.results[0]?.verdict, 'PROVEN');
    assert.equal(verdict?.actualConsensus, 1);
    assert.deepEqual(eventsOfType(events, 'options_set')[0]?.options, [
      { id: 'O1', label: 'PostgreSQL' },
      { id: 'O2', label: 'SQLite' },
    ]);
    assert.equal(state.digest?.digest.consensus, 'FULL');
    assert.match(state.digest?.text ?? '', /CONSENSUS: FULL — O1 — PostgreSQL \(PROVEN, 100% weighted agreement\)/);

    const out = await mkdtemp(path.join(tmpdir(), 'rt-report-'));
    const file = await writeMinutes(out, fold(events));
    const md = await readFile(file, 'utf8');
    for (const h of [
      '## Decision Question',
      '## Options Evaluated',
      '### O1: PostgreSQL',
      '**Pros**',
      '**Cons**',
      '## Voting Matrix',
      '## Verdict',
      '## Conflicts',
      '## Next Steps',
    ]) {
      assert.ok(md.includes(h), `report lacks ${h}`);
    }
    assert.match(md, /\| ada \| accept \(0\.95\) \| reject \(0\.80\) \| valid \|/);
    assert.match(md, /actualConsensus: 100%/);
    assert.match(md, /consensusThreshold: 80%/);
    assert.match(md, /`src\/db\.ts` \(top\) \[code\]/);
    const manifest = (await readFile(path.join(out, 'MANIFEST.jsonl'), 'utf8')).trim().split('\n');
    assert.equal(manifest.length, 1);
    const entry = JSON.parse(manifest[0] ?? '{}') as Record<string, unknown>;
    assert.equal(entry.id, state.meetingId);
    assert.equal(entry.file, path.basename(file));
    assert.deepEqual(Object.keys(entry), [...MANIFEST_KEYS], "exactly the seed's keys, in its order");
    assert.equal(entry.status, 'complete');
    assert.equal(entry.agent_type, 'analysis');
    assert.equal(entry.actionable, true);
    assert.deepEqual([entry.needs_followup, entry.linked_tasks], [[], []]);
    assert.ok(Array.isArray(entry.topics) && (entry.topics as string[]).includes('database'));
    assert.match(String((entry.key_findings as string[])[0]), /O1 PostgreSQL: PROVEN/);
    assert.match(md, /^\*\*Status\*\*: complete$/m);
    assert.match(md, /^\*\*Agent Type\*\*: analysis$/m);
  });

  it('flags cited files that do not exist, on the vote and in the report', async () => {
    const { events } = await consensus({
      replies: {
        ada: [ballot(['O1', 'accept', 0.9, ['src/db.ts', 'src/ghost.ts', '../../etc/passwd']], ['O2', 'reject', 0.9])],
        grace: [ballot(['O1', 'accept', 0.9, ['BENCH.md']], ['O2', 'reject', 0.9])],
        linus: [ballot(['O1', 'accept', 0.9], ['O2', 'reject', 0.9])],
      },
    });
    const ada = eventsOfType(events, 'ballot_recorded').find((b) => b.worker === 'ada');
    assert.deepEqual(
      ada?.votes[0]?.evidence.map((e) => [e.file, e.status]),
      [
        ['src/db.ts', 'exists'],
        ['src/ghost.ts', 'missing'],
        ['../../etc/passwd', 'outside_workspace'],
      ],
    );
    const md = renderMinutes(fold(events));
    assert.match(md, /`src\/ghost\.ts` \(top\) \[code\] ⚠ does not exist/);
    assert.match(md, /Check the evidence that could not be found: src\/ghost\\\.ts, \.\.\/\.\.\/etc\/passwd/);
  });

  it('asks once more on an invalid ballot, and records a worker that stays invalid as abstaining with the reason', async () => {
    const { state, events, provider } = await consensus({
      replies: {
        ada: ['I like Postgres.', ballot(['O1', 'accept', 0.9, ['src/db.ts']], ['O2', 'reject', 0.9])],
        grace: [ballot(['O1', 'accept', 0.9, ['BENCH.md']], ['O2', 'reject', 0.9])],
        linus: ['{"votes": [{"option": "O1", "vote": "accept", "confidence": 700}]}', 'still not json'],
      },
    });
    const ballots = eventsOfType(events, 'ballot_recorded');
    const ada = ballots.find((b) => b.worker === 'ada');
    const linus = ballots.find((b) => b.worker === 'linus');
    assert.deepEqual([ada?.valid, ada?.retried], [true, true]);
    assert.deepEqual([linus?.valid, linus?.retried], [false, true]);
    assert.match(linus?.invalidReason ?? '', /no JSON object/);
    assert.ok(linus?.votes.every((v) => v.vote === 'abstain'));
    const retry = provider.turnsOf('linus')[1]?.messages.at(-1)?.content ?? '';
    assert.match(retry, /That ballot is invalid: votes\[0\]\.confidence must be a number from 0\.0 to 1\.0, got 700/);
    assert.ok(
      provider.turnsOf('ada').every((r) => r.json?.name === 'ballot'),
      'JSON output is requested',
    );
    assert.equal(state.closed?.reason, 'verdict_reached');
    assert.match(
      renderMinutes(fold(events)),
      /\| linus \| abstain \(0\.00\) \| abstain \(0\.00\) \| invalid: the reply holds no JSON object \|/,
    );
  });

  it('sends a low-confidence vote without an uncertainty note back once, and reports the notes the seed asks for', async () => {
    const unsure = (note?: string) =>
      JSON.stringify({
        votes: [
          {
            option: 'O1',
            vote: 'accept',
            confidence: 0.3,
            rationale: 'probably fine',
            evidence: [{ file: 'src/db.ts' }],
            assumptions: ['the load stays under 1k writes/s'],
            ...(note ? { uncertainty: note } : {}),
          },
          {
            option: 'O2',
            vote: 'reject',
            confidence: 0.9,
            rationale: 'SQLite locks on concurrent writes',
            compromise: 'SQLite for tests only',
          },
        ],
      });
    const { events, provider } = await consensus({
      replies: {
        ada: [unsure(), unsure('no benchmark of our write pattern yet')],
        grace: [ballot(['O1', 'accept', 0.9, ['BENCH.md']], ['O2', 'reject', 0.9])],
        linus: [ballot(['O1', 'accept', 0.9], ['O2', 'reject', 0.9])],
      },
    });
    assert.equal(provider.turnsOf('ada').length, 2, 'asked exactly once more');
    const retry = provider.turnsOf('ada')[1]?.messages.at(-1)?.content ?? '';
    assert.match(
      retry,
      /That ballot is invalid: votes\[0\]\.uncertainty is missing: a confidence below 0\.5 needs a note/,
    );
    const ada = eventsOfType(events, 'ballot_recorded').find((b) => b.worker === 'ada');
    assert.deepEqual([ada?.valid, ada?.retried], [true, true]);
    assert.equal(ada?.votes[0]?.uncertainty, 'no benchmark of our write pattern yet');
    const md = renderMinutes(fold(events));
    assert.match(md, /## Rejected Alternatives\n\n- \*\*O2: SQLite\*\* — not chosen \(INSUFFICIENT_EVIDENCE\)\n/);
    assert.match(md, / {2}- ada: SQLite locks on concurrent writes/);
    assert.match(md, /## Hidden Assumptions\n\n- \*\*ada\*\* on O1: the load stays under 1k writes\/s/);
    assert.match(
      md,
      /## Uncertainty Notes\n\n- \*\*ada\*\* on O1 \(accept, confidence 0\.30\): no benchmark of our write pattern yet/,
    );
    assert.match(md, /## Compromise Proposals\n\n- \*\*ada\*\* on O2: SQLite for tests only/);
  });

  it('gathers options from a proposal round, deduplicated and capped', async () => {
    const { state, events } = await consensus(
      {
        replies: {
          ada: [
            '{"options": ["Use PostgreSQL", "Keep SQLite"]}',
            ballot(['O1', 'accept', 0.9, ['src/db.ts']], ['O2', 'reject', 0.9], ['O3', 'reject', 0.9]),
          ],
          grace: [
            '{"options": ["use postgresql!", "Adopt DynamoDB", "Write our own"]}',
            ballot(['O1', 'accept', 0.9, ['BENCH.md']], ['O2', 'reject', 0.9], ['O3', 'reject', 0.9]),
          ],
          linus: [
            '- Keep SQLite\n- Use PostgreSQL',
            ballot(['O1', 'accept', 0.9], ['O2', 'abstain', 0], ['O3', 'reject', 0.6]),
          ],
        },
      },
      { options: undefined, config: { maxOptions: 3 } },
    );
    assert.equal(eventsOfType(events, 'options_proposed').length, 3);
    assert.deepEqual(
      state.options.map((o) => o.label),
      ['Use PostgreSQL', 'Keep SQLite', 'Adopt DynamoDB'],
    );
    assert.equal(eventsOfType(events, 'options_set')[0]?.source, 'proposed');
    assert.equal(state.closed?.reason, 'verdict_reached');
  });

  it('holds challenge rounds where workers see the others’ votes as evidence and may revise', async () => {
    const { state, provider } = await consensus({
      replies: {
        ada: [
          ballot(['O1', 'accept', 0.9, ['src/db.ts']], ['O2', 'reject', 0.7]),
          ballot(['O1', 'accept', 0.9, ['src/db.ts']], ['O2', 'reject', 0.7]),
        ],
        grace: [
          ballot(['O1', 'reject', 0.7, ['BENCH.md']], ['O2', 'accept', 0.8, ['BENCH.md']]),
          ballot(['O1', 'accept', 0.85, ['BENCH.md']], ['O2', 'reject', 0.6]),
        ],
        linus: [
          ballot(['O1', 'abstain', 0], ['O2', 'accept', 0.6]),
          ballot(['O1', 'accept', 0.9], ['O2', 'reject', 0.6]),
        ],
      },
    });
    assert.equal(state.rounds.length, 2);
    assert.equal(state.rounds[0]?.verdict?.final, false, 'the first verdict was provisional');
    assert.equal(state.closed?.reason, 'verdict_reached');
    const challenge =
      provider
        .turnsOf('grace')[1]
        ?.messages.map((m) => m.content)
        .join('\n') ?? '';
    assert.match(
      challenge,
      /\[Inter-session message · from=ada · kind=peer · seq=\d+ · isUser=false\]\n\| O1 \(PostgreSQL\): ACCEPT at 0\.90/,
    );
    assert.match(
      challenge,
      /Your previous ballot:\n\[Inter-session message · from=grace · kind=peer · seq=\d+ · isUser=false\]\n\| O1 \(PostgreSQL\): REJECT/,
    );
    const others = /The other workers voted:\n([\s\S]*?)\n\nYour previous ballot/.exec(challenge)?.[1] ?? '';
    assert.match(others, /from=ada/);
    assert.doesNotMatch(others, /from=grace/, 'a worker is not shown its own ballot as a peer');
  });

  it('escalates a contested question after two challenge rounds, pausing in awaiting_human', async () => {
    const split = {
      replies: {
        ada: Array<string>(3).fill(ballot(['O1', 'accept', 0.7, ['src/db.ts']], ['O2', 'reject', 0.7])),
        grace: Array<string>(3).fill(ballot(['O1', 'reject', 0.7, ['BENCH.md']], ['O2', 'accept', 0.7, ['BENCH.md']])),
        linus: Array<string>(3).fill(ballot(['O1', 'abstain', 0], ['O2', 'abstain', 0])),
      },
    };
    const { state, events } = await consensus(split);
    assert.equal(state.status, 'awaiting_human');
    assert.equal(state.rounds.length, 3, 'first vote and two challenge rounds');
    assert.equal(state.closed, undefined);
    const reasons = eventsOfType(events, 'escalated')[0]?.reasons.join('; ') ?? '';
    assert.match(reasons, /below the 80% threshold/);
    assert.match(reasons, /the question is contested/);
    assert.equal(state.rounds[2]?.verdict?.decision, undefined);
    assert.ok(eventsOfType(events, 'meeting_closed').length === 0);
  });

  it('escalates suspicious unanimity at once, without challenge rounds', async () => {
    const all = ballot(['O1', 'accept', 1, ['src/db.ts']], ['O2', 'reject', 0.9]);
    const { state, events } = await consensus({ replies: { ada: [all], grace: [all], linus: [all] } });
    assert.equal(state.status, 'awaiting_human');
    assert.equal(state.rounds.length, 1);
    assert.match(eventsOfType(events, 'escalated')[0]?.reasons.join() ?? '', /suspicious unanimity/);
  });

  it('escalates a critical conflict', async () => {
    const { state, events } = await consensus({
      replies: {
        ada: Array<string>(3).fill(ballot(['O1', 'accept', 0.95, ['src/db.ts']], ['O2', 'reject', 0.6])),
        grace: Array<string>(3).fill(ballot(['O1', 'accept', 0.95, ['BENCH.md']], ['O2', 'reject', 0.6])),
        linus: Array<string>(3).fill(ballot(['O1', 'reject', 0.95, ['src/db.ts']], ['O2', 'reject', 0.6])),
      },
    });
    assert.equal(state.status, 'awaiting_human');
    assert.match(
      eventsOfType(events, 'escalated')[0]?.reasons.join() ?? '',
      /critical conflict C1 \(contradiction on O1\)/,
    );
  });

  it('resumes from awaiting_human in a new process and finishes on the human’s pick, another round, or deferral', async () => {
    const split = (n: number) => ({
      replies: {
        ada: Array<string>(n).fill(ballot(['O1', 'accept', 0.7, ['src/db.ts']], ['O2', 'reject', 0.7])),
        grace: Array<string>(n).fill(ballot(['O1', 'reject', 0.7, ['BENCH.md']], ['O2', 'accept', 0.7, ['BENCH.md']])),
        linus: [
          ...Array<string>(3).fill(ballot(['O1', 'abstain', 0], ['O2', 'abstain', 0])),
          ballot(['O1', 'accept', 0.9], ['O2', 'reject', 0.9]),
        ],
      },
    });
    for (const answer of ['pick', 'defer', 'another_round'] as const) {
      const dir = await mkdtemp(path.join(tmpdir(), 'rt-esc-'));
      const store = await SqliteStore.open(dir);
      const script = parseScript(split(4));
      const first = await Meeting.open(
        {
          store,
          providerFor: () => new ScriptedProvider(script),
          clock: systemClock,
          checkEvidence: evidenceChecker(workspace),
        },
        'm-esc',
        {
          topic: 'Which database?',
          mode: 'consensus',
          participants: panel(['ada', 'grace', 'linus'], false),
          options: ['PostgreSQL', 'SQLite'],
          providers: { script: split(4) },
        },
      );
      assert.equal((await first.run()).status, 'awaiting_human');
      await store.close();

      // A new process: the store is reopened and the meeting rebuilt from its log.
      const reopened = await SqliteStore.open(dir);
      const provider = new ScriptedProvider(parseScript(split(4)));
      const m = await Meeting.resume(
        { store: reopened, providerFor: () => provider, clock: systemClock, checkEvidence: evidenceChecker(workspace) },
        'm-esc',
      );
      assert.equal(m.state.status, 'awaiting_human');
      if (answer === 'pick')
        await assert.rejects(
          m.resolve('pick', { option: 'O7' }),
          /pick one of the options: O1 \(PostgreSQL\), O2 \(SQLite\)/,
        );
      await m.resolve(
        answer,
        answer === 'pick'
          ? { option: 'sqlite' }
          : answer === 'another_round'
            ? { instruction: 'Weigh the operational cost.' }
            : {},
      );
      const s = await m.run();
      const events: MeetingEvent[] = await reopened.load('m-esc');
      if (answer === 'pick') {
        assert.equal(s.closed?.reason, 'human_decided');
        assert.match(s.digest?.text ?? '', /O2 — SQLite .*picked by the human after escalation/);
      } else if (answer === 'defer') {
        assert.equal(s.closed?.reason, 'deferred');
        assert.match(renderMinutes(fold(events)), /\*\*No decision\*\* \(deferred\)/);
      } else {
        assert.equal(s.rounds.length, 4, 'one more round after the human asked');
        assert.ok(s.rounds[2]?.humanPosts.some((h) => h.text === 'Weigh the operational cost.'));
        assert.notEqual(s.status, 'closed', 'still split after the extra round: it escalates again');
        assert.equal(s.status, 'awaiting_human');
      }
      assert.equal(eventsOfType(events, 'meeting_interrupted').length, 1, 'the restart is in the log');
      assert.deepEqual(
        fold(events).resolutions.map((r) => r.action),
        [answer],
      );
      await reopened.close();
    }
  });
});

describe('consensus against a loopback OpenAI-compatible server and from the CLI', () => {
  let fake: FakeOpenAI;
  before(async () => {
    fake = await startFakeOpenAI((body: ChatBody) => {
      const system = body.messages?.[0]?.content ?? '';
      if (/voting in a structured consensus/.test(system)) {
        const me = /^You are (\w+)/.exec(system)?.[1];
        return {
          text: `Sure:\n\`\`\`json\n${ballot(['O1', me === 'grace' ? 'reject' : 'accept', 0.9, ['package.json']], ['O2', 'reject', 0.8])}\n\`\`\``,
        };
      }
      return { text: 'CONSENSUS_STATEMENT: go with O1\nCONTRIBUTORS: ada and linus for, grace against' };
    });
    ensureBuilt();
  });
  after(() => fake.close());

  it('runs a whole consensus meeting against the server, asking for JSON output', async () => {
    const participants = panel(['ada', 'grace', 'linus'], false).map((p) => ({
      ...p,
      provider: 'openai' as const,
      model: 'm',
    }));
    const { state } = await runMeeting({
      mode: 'consensus',
      options: ['Monorepo', 'Polyrepo'],
      participants,
      script: { replies: {} },
      provider: new OpenAIProvider({ baseURL: fake.baseURL }),
      deps: { checkEvidence: evidenceChecker(process.cwd()) },
    });
    assert.ok(fake.requests.some((r) => r.body.response_format?.type === 'json_object'));
    const last = state.rounds.at(-1);
    assert.equal(last?.verdict?.results[0]?.verdict, 'PROVEN');
    assert.equal(last?.verdict?.decision, 'O1');
    assert.ok(state.status === 'awaiting_human' || state.closed?.reason === 'verdict_reached');
  });

  it('runs from the CLI with --mode consensus --option, exits 3 without a TTY when it escalates, and resumes with roundtable resolve', async () => {
    const home = await mkdtemp(path.join(tmpdir(), 'rt-home-'));
    const out = await mkdtemp(path.join(tmpdir(), 'rt-out-'));
    const script = path.join(out, 'split.json');
    await writeFile(
      script,
      JSON.stringify({
        replies: {
          ada: Array<string>(3).fill(ballot(['O1', 'accept', 0.7, ['package.json']], ['O2', 'reject', 0.7])),
          grace: Array<string>(3).fill(
            ballot(['O1', 'reject', 0.7, ['README.md']], ['O2', 'accept', 0.7, ['README.md']]),
          ),
          linus: Array<string>(3).fill(ballot(['O1', 'abstain', 0], ['O2', 'abstain', 0])),
        },
      }),
    );
    const env = { ROUNDTABLE_HOME: home };
    const r = await cli(
      [
        'run',
        '--mode',
        'consensus',
        '--topic',
        'Monorepo or polyrepo?',
        '--option',
        'Monorepo',
        '--option',
        'Polyrepo',
        '--script',
        script,
        '--out',
        out,
        '--participants',
        path.join(__dirname, '..', 'fixtures', 'consensus-panel.json'),
      ],
      { env },
    );
    assert.equal(r.code, 3, r.stderr);
    assert.match(r.stderr, /needs a human decision: .*contested/);
    const id = /resume with: roundtable resolve (\S+)/.exec(r.stderr)?.[1];
    assert.ok(id);
    // The human is asked with the evidence: the report is already written, and the message names it.
    const reportPath = /^ {2}report: (.+)$/m.exec(r.stderr)?.[1];
    assert.ok(reportPath, r.stderr);
    assert.equal(path.dirname(reportPath), out);
    assert.match(r.stderr, new RegExp(`--out ${out.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    const blocked = await readFile(reportPath, 'utf8');
    assert.match(blocked, /^\*\*Status\*\*: blocked$/m);
    assert.match(blocked, /^\*\*Agent Type\*\*: analysis$/m);
    assert.match(blocked, /\*\*No decision\*\* \(awaiting the human\)/);
    assert.match(blocked, /- Escalated because: .*contested/);
    assert.match(blocked, /\| ada \| accept \(0\.70\) \| reject \(0\.70\) \| valid \|/);
    assert.match(blocked, /\| grace \| reject \(0\.70\) \| accept \(0\.70\) \| valid \|/);
    assert.match(blocked, /## Conflicts\n\n\| Id \| Severity/);
    assert.match(blocked, new RegExp(`roundtable resolve ${id} --pick`));
    const blockedLine = JSON.parse((await readFile(path.join(out, 'MANIFEST.jsonl'), 'utf8')).trim()) as Record<
      string,
      unknown
    >;
    assert.deepEqual([blockedLine.status, blockedLine.file], ['blocked', path.basename(reportPath)]);
    const bad = await cli(['resolve', id, '--pick', 'O9', '--out', out], { env });
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /pick one of the options/);
    const ok = await cli(['resolve', id, '--pick', 'O2', '--out', out, '--json'], { env });
    assert.equal(ok.code, 0, ok.stderr);
    const j = JSON.parse(ok.stdout) as { terminatedBy: string; minutesPath: string };
    assert.equal(j.terminatedBy, 'human_decided');
    assert.equal(j.minutesPath, reportPath, 'resolving updates the same report');
    const md = await readFile(j.minutesPath, 'utf8');
    assert.match(md, /\*\*Decision: O2 — Polyrepo\*\* \(picked by the human after escalation\)/);
    assert.match(md, /^\*\*Status\*\*: complete$/m);
    assert.doesNotMatch(md, /Status\*\*: blocked/);
    const reports = (await readdir(out)).filter((f) => f.endsWith('.md'));
    assert.deepEqual(reports, [path.basename(reportPath)], 'one file per meeting');
    const lines = (await readFile(path.join(out, 'MANIFEST.jsonl'), 'utf8')).trim().split('\n');
    assert.equal(lines.length, 1, 'the blocked line is replaced, not duplicated');
    const entry = JSON.parse(lines[0] ?? '{}') as Record<string, unknown>;
    assert.deepEqual(Object.keys(entry), [...MANIFEST_KEYS]);
    assert.deepEqual([entry.id, entry.status, entry.agent_type], [id, 'complete', 'analysis']);
  });

  it('rejects a consensus with a single option, and options outside consensus mode', async () => {
    let r = await cli(['run', '--mode', 'consensus', '--topic', 'x', '--option', 'only']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /at least 2 options/);
    r = await cli(['run', '--topic', 'x', '--option', 'a']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /--option is for --mode consensus/);
  });
});
