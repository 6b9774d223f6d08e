/** Participants files: a JSON list of participants, or `{ "participants": [...] }`. */
import { readFileSync } from 'node:fs';
import type { Participant } from '@roundtable/protocol';
import { checkPanel, isRecord } from '@roundtable/protocol';

export function parsePanel(json: unknown, source: string): Participant[] {
  const list = isRecord(json) ? json.participants : json;
  const checked = checkPanel(list);
  if (!checked.ok) throw new Error(`${source}: ${checked.error}`);
  return checked.value;
}

export function loadPanel(file: string): Participant[] {
  let raw: string;
  try {
    raw = readFileSync(file, 'utf8');
  } catch (e) {
    throw new Error(`cannot read participants file ${file}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`, {
      cause: e,
    });
  }
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (e) {
    throw new Error(`participants file ${file} is not valid JSON: ${(e as Error).message}`, { cause: e });
  }
  return parsePanel(json, `participants file ${file}`);
}
