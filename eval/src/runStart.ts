/**
 * What an eval run checks before it asks anything, one line each on failure (exit 2): the server
 * answers, and the checkpoint beside `--out` is one this run may write (and, with `--resume`, one
 * of this run).
 */
import { mkdirSync } from 'node:fs';
import * as path from 'node:path';
import { UsageError } from '@roundtable/client/usage';
import { probeOpenAIServer } from '../../daemon/src/providers/openai';
import { checkpointPathFor, refuseLink } from './harness';

export async function probeServer(baseURL: string, apiKey: string | undefined): Promise<void> {
  try {
    await probeOpenAIServer(baseURL, apiKey);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

/** The checkpoint of `out` (its folder made): read now by `resume` when resuming, else refused if it is a link. */
export function checkpointFor(out: string, resume: ((file: string) => unknown) | undefined): string {
  mkdirSync(path.dirname(out), { recursive: true });
  const checkpoint = checkpointPathFor(out);
  try {
    if (resume) resume(checkpoint);
    else refuseLink(checkpoint);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  return checkpoint;
}
