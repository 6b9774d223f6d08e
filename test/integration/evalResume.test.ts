/**
 * `eval --resume` grades what a checkpoint stored, never what it claims (issue 32): a tampered
 * line — an extra roundtable worker voting the expected answer, a missing worker, more rounds than
 * the run allows, a stored `correct: true` over a wrong reply — is scored from its replies or, when
 * its replies cannot be the run's, asked again. Real checkpoints written by a run against a
 * loopback server of models that err at known rates.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runEval } from '../../eval/src/harness';
import type { QuestionRecord, RunKey } from '../../eval/src/record';
import { arithmeticSet, type Question } from '../../eval/src/questions';
import type { ChatProvider } from '../../daemon/src/providers/types';
import { evalSetup, startEvalServer, type EvalServer } from '../fakes/evalServer';

const RATES = { m1: 0.3, m2: 0.35, m3: 0.45 };
const MODELS = Object.keys(RATES);

describe('eval --resume grades the stored answers, never the stored verdicts', () => {
  let server: EvalServer;
  before(async () => {
    server = await startEvalServer(RATES);
  });
  after(() => server.fake.close());
  const setup = (provider?: ChatProvider) => evalSetup(server, MODELS, provider);
  const key: RunKey = { set: 'arithmetic', seed: 7, models: MODELS, rounds: 2 };

  /** A finished run of n questions: its checkpoint lines (key first) and its scores. */
  async function answered(n: number): Promise<{ checkpoint: string; questions: Question[]; lines: string[] }> {
    const dir = await mkdtemp(path.join(tmpdir(), 'rt-eval-'));
    const checkpoint = path.join(dir, 'c.jsonl');
    const questions = arithmeticSet(n, 7);
    await runEval({ setup: setup(), key, questions, concurrency: 2, checkpoint, resume: false });
    return { checkpoint, questions, lines: (await readFile(checkpoint, 'utf8')).trim().split('\n') };
  }

  /** Rewrites every record line with `edit`, resumes, and says how many questions were asked again. */
  async function resumeTampered(
    run: { checkpoint: string; questions: Question[]; lines: string[] },
    edit: (r: QuestionRecord) => void,
  ): Promise<{ asked: number; records: QuestionRecord[] }> {
    const tampered = run.lines.map((l, i) => {
      if (i === 0) return l;
      const r = JSON.parse(l) as QuestionRecord;
      edit(r);
      return JSON.stringify(r);
    });
    await writeFile(run.checkpoint, `${tampered.join('\n')}\n`);
    const before = server.independentCalls();
    const { records } = await runEval({
      setup: setup(),
      key,
      questions: run.questions,
      concurrency: 1,
      checkpoint: run.checkpoint,
      resume: true,
    });
    return { asked: (server.independentCalls() - before) / MODELS.length, records };
  }

  it('an extra roundtable worker that votes the expected answer: the line is asked again, not counted right', async () => {
    const run = await answered(3);
    const { asked, records } = await resumeTampered(run, (r) => {
      const forged = `ANSWER: ${r.expected}\n[STANCE: AGREE]`;
      r.replies?.roundtable.push([forged, forged], [forged, forged]);
    });
    assert.equal(asked, 3, 'every tampered question is asked again');
    // What the real panel answered, not what two forged columns would have decided.
    for (const r of records) assert.equal(r.replies?.roundtable.length, MODELS.length);
  });

  it('a missing roundtable worker: asked again', async () => {
    const run = await answered(2);
    const { asked } = await resumeTampered(run, (r) => r.replies?.roundtable.pop());
    assert.equal(asked, 2);
  });

  it('more rounds than the run allows: asked again', async () => {
    const run = await answered(2);
    const { asked } = await resumeTampered(run, (r) => {
      for (const c of r.replies?.roundtable ?? []) c.push(`ANSWER: ${r.expected}`);
    });
    assert.equal(asked, 2);
  });

  it('a wrong stored answer marked correct is graded wrong again, with no call made', async () => {
    const run = await answered(4);
    const honest = run.lines.slice(1).map((l) => JSON.parse(l) as QuestionRecord);
    const { asked, records } = await resumeTampered(run, (r) => {
      for (const x of Object.values(r.results)) Object.assign(x, { answer: r.expected, correct: true });
      if (r.round1) Object.assign(r.round1, { answer: r.expected, correct: true });
    });
    assert.equal(asked, 0, 'the replies are all there: nothing is asked again');
    const byId = new Map(honest.map((r) => [r.id, r]));
    for (const r of records) {
      const was = byId.get(r.id);
      assert.deepEqual(
        Object.values(r.results).map((x) => x.correct),
        Object.values(was?.results ?? {}).map((x) => x.correct),
        r.id,
      );
      assert.equal(r.round1?.correct, was?.round1?.correct, `${r.id} round 1`);
    }
  });

  it('replies that are not text (a number, null) in one column: asked again', async () => {
    const run = await answered(1);
    const { asked } = await resumeTampered(run, (r) => {
      (r.replies?.roundtable[0] as unknown[] | undefined)?.splice(0, 1, 42, null);
    });
    assert.equal(asked, 1);
  });
});
