/**
 * `--prices FILE`: model → US dollars per million tokens, read and checked once for every front
 * door that prices a bill (`roundtable run`, `review`, `eval --review`).
 */
import { readFileSync } from 'node:fs';
import type { Prices } from '@roundtable/protocol';
import { PricesSchema } from '@roundtable/protocol';
import { UsageError } from './usage';

/** Reads and checks a prices file; anything wrong is one line saying what to fix. */
export function loadPrices(file: string): Prices {
  let raw: string;
  try {
    raw = readFileSync(file, 'utf8');
  } catch (e) {
    throw new UsageError(
      `--prices: cannot read ${file} (${(e as NodeJS.ErrnoException).code ?? 'error'}): give a JSON file`,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    throw new UsageError(`--prices: ${file} is not valid JSON: give {"<model>": {"input": 2.5, "output": 10}}`);
  }
  const r = PricesSchema.safeParse(json);
  if (!r.success) {
    const issue = r.error.issues[0];
    const where = issue?.path.length ? issue.path.join('.') : 'the file';
    throw new UsageError(
      `--prices: ${file}: ${where}: ${issue?.message ?? 'invalid'} (expected {"<model>": {"input": $, "output": $, "cachedInput"?: $}} in US dollars per million tokens)`,
    );
  }
  return r.data;
}
