/**
 * What an eval run checks before it asks anything, one line each on failure (exit 2): its integer
 * options and its panel, `--out` can be written, the server answers, and the checkpoint beside
 * `--out` is one this run may write (and, with `--resume`, one of this run). Both evals (questions
 * and `--review`) start here.
 */
import * as path from 'node:path';
import { UsageError } from '@roundtable/client/usage';
import { checkOutputFile } from '@roundtable/client/minutesOutput';
import { ensureDir } from '@roundtable/client/outputDir';
import { probeOpenAIServer } from '../../daemon/src/providers/probe';
import { checkpointPathFor, refuseLink } from './harness';

/** What an eval command writes to and reads its settings from. */
export interface EvalIO {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
  /** stderr is a terminal: progress rewrites one line. */
  stderrTTY?: boolean;
}

/** An integer option of at least `min`; undefined when it is not given. */
export function intOption(v: string | undefined, flag: string, min = 1): number | undefined {
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v.trim()) || Number(v) < min || !Number.isSafeInteger(Number(v)))
    throw new UsageError(`${flag} must be an integer of at least ${min}, got "${v}"`);
  return Number(v);
}

/** `--models`: the panel's models, comma-separated, two or more. */
export function panelModels(list: string | undefined): string[] {
  const models = (list ?? '')
    .split(',')
    .map((m) => m.trim())
    .filter(Boolean);
  if (models.length < 2)
    throw new UsageError('--models needs two or more models, comma-separated (e.g. --models llama3.1,qwen2.5,mistral)');
  return models;
}

/** `--out` is checked before any server is asked: a place that cannot be written is bad usage. */
export async function checkOut(out: string): Promise<void> {
  await checkOutputFile(out, '--out');
}

export async function probeServer(baseURL: string, apiKey: string | undefined): Promise<void> {
  try {
    await probeOpenAIServer(baseURL, apiKey);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

/**
 * The checkpoint of `out` (its folder made): read now by `resume` when resuming (what it read is
 * `resumed`), else refused if it is a link.
 */
export async function checkpointFor<T>(
  out: string,
  resume: ((file: string) => T) | undefined,
): Promise<{ checkpoint: string; resumed: T | undefined }> {
  await ensureDir(path.dirname(out));
  const checkpoint = checkpointPathFor(out);
  let resumed: T | undefined;
  try {
    if (resume) resumed = resume(checkpoint);
    else refuseLink(checkpoint);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  return { checkpoint, resumed };
}
