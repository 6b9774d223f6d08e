/** Atomic file writes for documents: the whole text or nothing, never a torn file. */
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';

/** Writes `text` to a new temp file in `dir`, fsynced, and returns its path (the caller links or renames it). */
export async function writeTemp(dir: string, base: string, text: string): Promise<string> {
  const tmp = path.join(dir, `.${base}.${randomBytes(6).toString('hex')}.tmp`);
  const fh = await fs.open(tmp, 'wx', 0o644);
  try {
    await fh.writeFile(text, 'utf8');
    await fh.sync();
  } finally {
    await fh.close();
  }
  return tmp;
}

/** Writes `file` atomically: a temp file beside it, fsync, rename over. */
export async function replaceFile(file: string, text: string): Promise<void> {
  const tmp = await writeTemp(path.dirname(file), path.basename(file), text);
  try {
    await fs.rename(tmp, file);
  } catch (e) {
    await fs.rm(tmp, { force: true });
    throw e;
  }
}
