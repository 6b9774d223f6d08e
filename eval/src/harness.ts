/**
 * Runs a question set through the four systems with bounded concurrency, checkpointing every
 * finished question to a JSONL file so an interrupted run resumes without asking again; the
 * figures are summary.ts's.
 */
import { closeSync, constants, existsSync, lstatSync, openSync, readFileSync, writeSync } from 'node:fs';
import type { LocalCore } from '../../daemon/src/daemon/localCore';
import { judgeBestOf } from './bestOf';
import type { Question } from './questions';
import { rescore, sameKey, scoreReplies, setHashOf, type QuestionRecord, type RunKey } from './record';
import { summarize, type EvalResults } from './summary';
import { evalCore, independentAnswers, roundtableOn, type PanelSetup } from './systems';

export function checkpointPathFor(outFile: string): string {
  return outFile.replace(/\.json$/i, '') + '.checkpoint.jsonl';
}

/** A checkpoint that is a symbolic link is refused: writing it would overwrite whatever it points at. */
export function refuseLink(file: string): void {
  let link: boolean;
  try {
    link = lstatSync(file).isSymbolicLink();
  } catch {
    return; // not there yet
  }
  if (link)
    throw new Error(
      `the checkpoint ${file} is a symbolic link: give --out a path of your own, not a link to another file`,
    );
}

/** Opens the checkpoint to write, refusing a symbolic link even if one appears after the check. */
function openCheckpoint(file: string, truncate: boolean): number {
  refuseLink(file);
  const flags =
    constants.O_WRONLY | constants.O_CREAT | constants.O_NOFOLLOW | (truncate ? constants.O_TRUNC : constants.O_APPEND);
  try {
    return openSync(file, flags, 0o600);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ELOOP') refuseLink(file);
    throw e;
  }
}

/**
 * The lines of a checkpoint after its key, each parsed, for the run whose key `sameRun` accepts (an
 * error line, naming `differs`, when the key is another run's). Nothing when there is no file yet.
 * A last line cut short by a crash is dropped: what it held is done again.
 */
export function checkpointEntries<K>(
  file: string,
  sameRun: (key: K) => boolean,
  differs: string,
  onEntry: (v: unknown) => void,
): void {
  refuseLink(file);
  if (!existsSync(file)) return;
  const lines = readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim());
  lines.forEach((line, i) => {
    let v: { key?: K } | null;
    try {
      v = JSON.parse(line) as typeof v;
    } catch {
      if (i === lines.length - 1) return;
      throw new Error(`${file}:${i + 1} is not JSON: delete the checkpoint or run without --resume`);
    }
    if (i > 0) return onEntry(v);
    if (!v || typeof v !== 'object' || !v.key || !sameRun(v.key))
      throw new Error(
        `the checkpoint ${file} belongs to another run (${differs} differ): run without --resume to start over`,
      );
  });
}

/**
 * Records of a checkpoint written for the same run (same set — questions and answers —, seed,
 * models, rounds), each scored again from its replies; an error line when it belongs to another run.
 */
export function readCheckpoint(file: string, key: RunKey, questions: Question[] = []): Map<string, QuestionRecord> {
  const done = new Map<string, QuestionRecord>();
  const byId = new Map(questions.map((q) => [q.id, q]));
  checkpointEntries<RunKey>(
    file,
    (k) => sameKey(k, key),
    'set, its answers, seed, models or rounds',
    (v) => {
      const id = (v as Partial<QuestionRecord> | null)?.id;
      const q = typeof id === 'string' ? byId.get(id) : undefined;
      const r = q ? rescore(v, q, key.models.length, key.rounds) : undefined;
      if (r) done.set(r.id, r);
    },
  );
  return done;
}

export interface HarnessOptions {
  setup: PanelSetup;
  key: RunKey;
  questions: Question[];
  concurrency: number;
  checkpoint: string;
  resume: boolean;
  /** Called after each question (resumed ones included) with the records so far. */
  onProgress?: (done: number, total: number, records: QuestionRecord[]) => void;
}

/** Every system on one question: the independent answers, the judge's pick among them, a meeting. */
async function answerAll(setup: PanelSetup, core: LocalCore, q: Question): Promise<QuestionRecord> {
  const { single, majority, replies: independent } = await independentAnswers(setup, q);
  const judge = await judgeBestOf(setup, q, independent);
  const { columns, ...roundtable } = await roundtableOn(setup, core, q);
  // The best-of arm pays for the independent answers it picks from, and for the judge's call.
  const best = { billedTokens: majority.billedTokens + judge.billedTokens, wallMs: majority.wallMs + judge.wallMs };
  return scoreReplies(
    q,
    { independent, roundtable: columns, best: judge.reply },
    { single, majority, best, roundtable },
  );
}

/**
 * Runs `work` on each item the checkpoint does not already hold (`done`), `concurrency` at a time,
 * appending one checkpoint line per finished item at once (a crash loses at most the items in
 * flight). The first failure stops every worker from taking another item; the ones in flight
 * finish and are kept, and the failure is thrown once no worker can still write to the checkpoint.
 * The results come back in the items' order. One loop for the question and the review evals.
 */
export async function runCheckpointed<I extends { id: string }, R>(o: {
  items: readonly I[];
  done: ReadonlyMap<string, R>;
  key: unknown;
  checkpoint: string;
  resume: boolean;
  concurrency: number;
  /** One item's result, and the line the checkpoint keeps of it. */
  work: (item: I) => Promise<{ result: R; line: unknown }>;
  onProgress?: (done: number, total: number, results: R[]) => void;
}): Promise<R[]> {
  const fresh = !o.resume || !existsSync(o.checkpoint);
  const fd = openCheckpoint(o.checkpoint, fresh);
  if (fresh) writeSync(fd, `${JSON.stringify({ key: o.key })}\n`);
  const byId = new Map<string, R>();
  for (const item of o.items) {
    const r = o.done.get(item.id);
    if (r !== undefined) byId.set(item.id, r);
  }
  const pending = o.items.filter((item) => !byId.has(item.id));
  const report = () => o.onProgress?.(byId.size, o.items.length, [...byId.values()]);
  report();
  let next = 0;
  let failure: { error: unknown } | undefined;
  const one = async (item: I) => {
    const { result, line } = await o.work(item);
    writeSync(fd, `${JSON.stringify(line)}\n`);
    byId.set(item.id, result);
    report();
  };
  const worker = async () => {
    for (let item = pending[next++]; item && !failure; item = pending[next++])
      await one(item).catch((error: unknown) => {
        failure ??= { error };
      });
  };
  try {
    await Promise.all(Array.from({ length: Math.max(1, Math.min(o.concurrency, pending.length)) }, worker));
  } finally {
    closeSync(fd);
  }
  if (failure) throw failure.error;
  return o.items.map((item) => byId.get(item.id)).filter((r): r is R => r !== undefined);
}

export async function runEval(o: HarnessOptions): Promise<{ results: EvalResults; records: QuestionRecord[] }> {
  const key: RunKey = { ...o.key, setHash: o.key.setHash ?? setHashOf(o.questions) };
  const done = o.resume ? readCheckpoint(o.checkpoint, key, o.questions) : new Map<string, QuestionRecord>();
  const core = await evalCore(() => o.setup.provider);
  try {
    const records = await runCheckpointed({
      items: o.questions,
      done,
      key,
      checkpoint: o.checkpoint,
      resume: o.resume,
      concurrency: o.concurrency,
      work: async (q) => {
        const r = await answerAll(o.setup, core, q);
        return { result: r, line: r };
      },
      ...(o.onProgress ? { onProgress: o.onProgress } : {}),
    });
    return { results: summarize(key, records), records };
  } finally {
    await core.close();
  }
}
