import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import type { Participant } from '@roundtable/protocol';
import { debateMetrics, fold } from '@roundtable/protocol';
import { JUDGE_ANTI_CONFORMITY, WORKER_ANTI_CONFORMITY } from '../../daemon/src/meeting/antiConformity';
import { renderMinutes } from '@roundtable/protocol/minutes';
import { evidenceChecker } from '../../daemon/src/meeting/evidence';
import { judgePrompt, workerPrompt } from '../../daemon/src/meeting/prompts';
import { ballot, eventsOfType, panel, runMeeting } from '../fakes/meetings';

const SAME = 'Atomic commits across services matter most.';

describe('debate metrics of a meeting', () => {
  it('flags a flip to the majority that followed no new argument, and a debate that kept the round-1 majority', async () => {
    const { state, events } = await runMeeting({
      config: { maxRounds: 2 },
      script: {
        replies: {
          ada: [`${SAME} [STANCE: AGREE]`, `Fine, I go with the others. [STANCE: DISAGREE]`],
          grace: [`${SAME} [STANCE: DISAGREE]`, `${SAME} [STANCE: DISAGREE]`],
          linus: [`Services across commits: atomic matters most. [STANCE: DISAGREE]`, `Same. [STANCE: DISAGREE]`],
        },
      },
    });
    const m = debateMetrics(state);
    assert.equal(m.round1Majority, 'DISAGREE');
    assert.equal(m.finalOutcome, 'DISAGREE');
    assert.equal(m.changedOutcome, false);
    assert.equal(m.flips.length, 1);
    const [flip] = m.flips;
    assert.equal(flip?.worker, 'ada');
    assert.equal(flip?.round, 2);
    assert.equal(`${flip?.from}→${flip?.to}`, 'AGREE→DISAGREE');
    assert.equal(flip?.towardMajority, true);
    assert.equal(flip?.possibleConformity, true);
    const r1Posts = eventsOfType(events, 'message_posted').filter(
      (e) => e.round === 1 && e.from !== 'ada' && e.role === 'worker',
    );
    assert.deepEqual(
      flip?.followed
        .filter((f) => f.kind === 'post')
        .map((f) => f.seq)
        .sort(),
      r1Posts.map((e) => e.seq).sort(),
      'the flip names the posts it followed',
    );
    const later = eventsOfType(events, 'usage_recorded')
      .filter((e) => (e.round ?? 0) > 1 && e.purpose !== 'digest')
      .reduce((n, e) => n + e.usage.promptTokens + e.usage.completionTokens, 0);
    assert.ok(later > 0);
    assert.equal(m.laterRoundsBilledTokens, later);
    assert.match(
      state.digest?.text ?? '',
      new RegExp(
        `\\nDebate changed the outcome: no .* rounds after the first cost ${later.toLocaleString('en-US')} billed tokens · changed position: ada AGREE → DISAGREE in round 2 after grace, linus \\(possible conformity: no new argument\\)$`,
      ),
    );

    const minutes = renderMinutes(fold(events));
    assert.match(minutes, /## Was the debate worth it\?/);
    assert.match(minutes, /Round 1 was independent:\*\* every worker answered/);
    assert.match(
      minutes,
      /\| ada \| 2 \| AGREE → DISAGREE \| grace's post \(seq \d+\), linus's post \(seq \d+\) \| yes \| \*\*possible conformity\*\*/,
    );
  });

  it('a flip after a new argument and a judge note is not conformity; a split round 1 that ends agreed changed the outcome', async () => {
    const { state } = await runMeeting({
      config: { maxRounds: 2 },
      script: {
        replies: {
          jude: ['@ada: you ignore linus — answer his point on build times'],
          ada: [`${SAME} [STANCE: AGREE]`, `Linus is right about builds. [STANCE: DISAGREE]`],
          grace: [
            `Ownership boundaries blur in one repository. [STANCE: NEUTRAL]`,
            `Agreed with linus. [STANCE: DISAGREE]`,
          ],
          linus: [
            `Measured builds grow beyond forty minutes; release coupling blocks independent deploys. [STANCE: DISAGREE]`,
            `Still against. [STANCE: DISAGREE]`,
          ],
        },
      },
    });
    const m = debateMetrics(state);
    assert.equal(m.round1Majority, 'no majority');
    assert.equal(m.finalOutcome, 'DISAGREE');
    assert.equal(m.changedOutcome, true);
    const ada = m.flips.find((f) => f.worker === 'ada');
    assert.ok(
      ada?.followed.some((f) => f.kind === 'judge'),
      'the judge note is named',
    );
    assert.equal(ada?.possibleConformity, false);
    assert.match(
      state.digest?.text ?? '',
      /\nDebate changed the outcome: yes \(round 1 majority: no majority; final: DISAGREE\)/,
    );
  });

  it('consensus: the plain majority of round-1 ballots against the decision, in the digest and the minutes', async () => {
    const workspace = mkdtempSync(path.join(tmpdir(), 'rt-debate-ws-'));
    writeFileSync(path.join(workspace, 'BENCH.md'), '# numbers\n');
    const { state, events } = await runMeeting({
      deps: { checkEvidence: evidenceChecker(workspace) },
      mode: 'consensus',
      topic: 'Which database should the billing service use?',
      options: ['PostgreSQL', 'SQLite'],
      participants: panel(['ada', 'grace', 'linus'], false),
      script: {
        replies: {
          ada: [ballot(['O1', 'accept', 0.9, ['BENCH.md']], ['O2', 'reject', 0.8])],
          grace: [ballot(['O1', 'accept', 0.9, ['BENCH.md']], ['O2', 'reject', 0.7])],
          linus: [ballot(['O1', 'accept', 0.8], ['O2', 'abstain', 0])],
        },
      },
    });
    const m = debateMetrics(state);
    assert.equal(state.closed?.reason, 'verdict_reached');
    assert.equal(m.round1Majority, 'O1');
    assert.equal(m.finalOutcome, 'O1');
    assert.equal(m.changedOutcome, false);
    assert.match(
      state.digest?.text ?? '',
      /\nDebate changed the outcome: no \(round 1 majority: O1; final: O1\) · rounds after the first cost 0 billed tokens$/,
    );
    assert.match(renderMinutes(fold(events)), /Plain majority of round 1 ballots:\*\* O1 · \*\*final outcome:\*\* O1/);
  });

  it('a one-round meeting cannot have changed anything and cost nothing after round 1', async () => {
    const { state } = await runMeeting({
      config: { maxRounds: 1 },
      script: {
        replies: { ada: ['x [STANCE: AGREE]'], grace: ['y [STANCE: DISAGREE]'], linus: ['z [STANCE: DISAGREE]'] },
      },
    });
    const m = debateMetrics(state);
    assert.equal(m.changedOutcome, false);
    assert.equal(m.laterRoundsBilledTokens, 0);
    assert.deepEqual(m.flips, []);
  });
});

describe('round 1 is independent, and the prompts resist conformity', () => {
  for (const order of ['parallel', 'sequential', 'shuffle'] as const) {
    it(`no worker sees another's post before its round-1 answer (${order} order), and does in round 2`, async () => {
      const secret = (w: string, r: number) => `SECRET-${w.toUpperCase()}-R${r}`;
      const workers = ['ada', 'grace', 'linus'];
      const { provider } = await runMeeting({
        config: { maxRounds: 2, order },
        script: {
          replies: Object.fromEntries(workers.map((w) => [w, [1, 2].map((r) => `${secret(w, r)} [STANCE: DISAGREE]`)])),
        },
      });
      for (const w of workers) {
        const [r1, r2] = provider.turnsOf(w).map((req) => req.messages.map((m) => m.content).join('\n'));
        for (const other of workers.filter((x) => x !== w)) {
          assert.ok(!r1?.includes(secret(other, 1)), `${w} saw ${other} in round 1`);
          assert.ok(r2?.includes(secret(other, 1)), `${w} sees ${other}'s round-1 post in round 2`);
        }
      }
    });
  }

  it('the judge protects dissent, engages a third worker on a deadlock and never argues; workers say what would change their mind', async () => {
    const { state } = await runMeeting({
      config: { maxRounds: 1 },
      script: { replies: { ada: ['a [STANCE: AGREE]'] } },
    });
    const by = (n: string) => state.participants.find((p) => p.name === n) as Participant;
    const round = state.rounds[0];
    assert.ok(round);
    // The judge's rules are in its seat (the last message), not in the system every worker is sent.
    const judge = judgePrompt(state, by('jude'), round).at(-1)?.content ?? '';
    for (const rule of JUDGE_ANTI_CONFORMITY) assert.ok(judge.includes(rule), rule);
    assert.match(judge, /Protect dissent/);
    assert.match(judge, /deadlocked, name a third worker/);
    assert.match(judge, /Never argue a position yourself/);
    const worker = workerPrompt(state, by('ada'), round)[0]?.content ?? '';
    assert.ok(worker.includes(WORKER_ANTI_CONFORMITY));
    assert.match(worker, /say what would change your mind/);
  });
});
