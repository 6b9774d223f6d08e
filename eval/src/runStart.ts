/**
 * What an eval run checks before it asks anything, one line each on failure (exit 2): `--out` can
 * be written, the server answers, and the checkpoint beside `--out` is one this run may write (and,
 * with `--resume`, one of this run).
 */
import * as path from 'node:path';
import { UsageError } from '@roundtable/client/usage';
import { checkOutputFile } from '@roundtable/client/minutesOutput';
import { ensureDir } from '@roundtable/client/outputDir';
import { probeOpenAIServer } from '../../daemon/src/providers/probe';
import { checkpointPathFor, refuseLink } from './harness';

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

/** The checkpoint of `out` (its folder made): read now by `resume` when resuming, else refused if it is a link. */
export async function checkpointFor(out: string, resume: ((file: string) => unknown) | undefined): Promise<string> {
  await ensureDir(path.dirname(out));
  const checkpoint = checkpointPathFor(out);
  try {
    if (resume) resume(checkpoint);
    else refuseLink(checkpoint);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  return checkpoint;
}
