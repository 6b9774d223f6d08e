/**
 * How the built-in cases are written: code as lines, the records a case's repository holds, the
 * change, and each breach named by the text of the lines it is on (the label's line range is found
 * in the changed file, so an edit to a case cannot leave a label pointing at the wrong lines).
 */
import { checkCase, linesOf, type Label, type ReviewCase } from '../cases';
import { recordId, records, type RecordName } from './records';

/** A file's text from its lines. */
export const code = (...lines: string[]): string => `${lines.join('\n')}\n`;

/** A breach a careful reviewer reports: the changed file, the text of its lines, and what it breaks. */
export interface Breach {
  file: string;
  /** Text on the lines of the breach (one line or several, as written in the file). */
  at: string;
  record?: RecordName;
  defect?: string;
}

export interface CaseSpec {
  id: string;
  title: string;
  note: string;
  /** The decision records the repository holds. */
  records: RecordName[];
  /** The other files of the base commit. */
  base?: Record<string, string>;
  change: Record<string, string>;
  deleted?: string[];
  /** None: a clean control. */
  breaks?: Breach[];
}

function labelOf(s: CaseSpec, b: Breach): Label {
  const text = s.change[b.file];
  if (text === undefined) throw new Error(`built-in case ${s.id}: ${b.file} is not in its change`);
  return {
    file: b.file,
    lines: linesOf(text, b.at),
    ...(b.record ? { decision: recordId(b.record) } : {}),
    ...(b.defect ? { defect: b.defect } : {}),
  };
}

export function defineCase(s: CaseSpec): ReviewCase {
  return checkCase({
    id: s.id,
    title: s.title,
    note: s.note,
    base: { ...records(...s.records), ...s.base },
    change: s.change,
    deleted: s.deleted ?? [],
    labels: (s.breaks ?? []).map((b) => labelOf(s, b)),
  });
}

/** Files many cases start from. */
export const COMMON = {
  log: {
    'src/lib/log.ts': code(
      "import pino from 'pino';",
      '',
      "export const log = pino({ level: 'info', base: { service: 'shop' } });",
    ),
  },
  result: {
    'src/domain/result.ts': code(
      'export type Result<T, E> = { ok: true; value: T } | { ok: false; error: E };',
      'export const ok = <T>(value: T): Result<T, never> => ({ ok: true, value });',
      'export const err = <E>(error: E): Result<never, E> => ({ ok: false, error });',
      "export type DomainError = { kind: 'invalid' | 'missing' | 'conflict'; message: string };",
    ),
  },
  http: {
    'src/lib/http.ts': code(
      "import { request as undiciRequest } from 'undici';",
      '',
      'export async function request(url: string, init: { method?: string; body?: string } = {}) {',
      '  const res = await undiciRequest(url, { ...init, headersTimeout: 5_000, bodyTimeout: 10_000 });',
      '  if (res.statusCode >= 400) throw new Error(`${init.method ?? "GET"} ${url}: ${res.statusCode}`);',
      '  return res.body.json();',
      '}',
    ),
  },
  background: {
    'src/lib/background.ts': code(
      "import { log } from './log';",
      '',
      'export function runInBackground(work: Promise<unknown>, what: string): void {',
      '  work.catch((error: unknown) => log.error({ error, what }, "background work failed"));',
      '}',
    ),
  },
  config: {
    'src/config/index.ts': code(
      "import { z } from 'zod';",
      '',
      'const Env = z.object({',
      '  DATABASE_URL: z.string().url(),',
      '  PORT: z.coerce.number().int().default(8080),',
      '  STRIPE_SECRET_KEY: z.string().min(1),',
      '  LD_SDK_KEY: z.string().min(1),',
      '});',
      '',
      'export const config = Env.parse(process.env);',
    ),
  },
  flags: {
    'src/flags.ts': code(
      "import { init } from '@launchdarkly/node-server-sdk';",
      "import { config } from './config';",
      '',
      'const client = init(config.LD_SDK_KEY);',
      '',
      "export type FlagName = 'new-checkout' | 'saved-carts';",
      '',
      'export async function isOn(name: FlagName, user: { id: string }): Promise<boolean> {',
      "  return client.variation(name, { kind: 'user', key: user.id }, false);",
      '}',
    ),
  },
} satisfies Record<string, Record<string, string>>;
