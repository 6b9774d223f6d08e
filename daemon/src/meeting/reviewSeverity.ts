/**
 * A finding's severity as models write it, mapped to ours by the scale the word belongs to
 * (docs/review.md has the table): four-step scales (critical/high/medium/low, P0–P3) map step for
 * step, three-step ones (error/warning/info) top to top and bottom to bottom, traffic-light emoji
 * by colour. A word on no scale, or none at all, is read as `blocking`: the gate would rather
 * have the panel vote on a finding it could not grade than let a proven one pass as minor.
 */
import type { Severity } from '@roundtable/protocol';

/** Words by the step of their own scale (case, `_`/`-` and surrounding punctuation ignored). */
const WORDS = new Map<string, Severity>([
  ...[
    'blocking',
    'blocker',
    'critical',
    'crit',
    'fatal',
    'severe',
    'error',
    'must fix',
    'must-fix',
    'high severity',
    'p0',
    'sev0',
    'sev1',
    'urgent',
  ].map((w) => [w, 'blocking'] as const),
  ...['major', 'high', 'important', 'serious', 'warning', 'warn', 'p1', 'sev2'].map((w) => [w, 'major'] as const),
  ...['minor', 'medium', 'moderate', 'normal', 'p2', 'sev3'].map((w) => [w, 'minor'] as const),
  ...[
    'note',
    'low',
    'info',
    'information',
    'informational',
    'nit',
    'nitpick',
    'suggestion',
    'style',
    'trivial',
    'optional',
    'hint',
    'p3',
    'p4',
    'sev4',
  ].map((w) => [w, 'note'] as const),
]);

/** Traffic-light and alarm emoji as review bots print them (`🔴 Critical`, `🟡`, `🚨`). */
const EMOJI: [string, Severity][] = [
  ['🔴', 'blocking'],
  ['🚨', 'blocking'],
  ['⛔', 'blocking'],
  ['❌', 'blocking'],
  ['🟠', 'major'],
  ['⚠', 'major'],
  ['🟡', 'minor'],
  ['🟢', 'note'],
  ['🔵', 'note'],
  ['⚪', 'note'],
  ['💡', 'note'],
];

/** `priority` as an integer: Codex's review format numbers P0–P3 (0 most severe). */
const PRIORITY: readonly Severity[] = ['blocking', 'major', 'minor', 'note'];

/**
 * A severity written as a number, on a scale out of 10 that grows with severity, read by the CVSS
 * bands (one recorded Claude reply spells out these very bands: 1-3 minor, 4-6 moderate, 7-8
 * major, 9-10 critical).
 */
function fromTen(n: number): Severity | undefined {
  if (!Number.isFinite(n) || n < 1 || n > 10) return undefined;
  return n >= 9 ? 'blocking' : n >= 7 ? 'major' : n >= 4 ? 'minor' : 'note';
}

export interface SeverityRead {
  severity: Severity;
  /** False when the word was on no scale we know, or missing: read as blocking (fail closed). */
  known: boolean;
  /** What was written, when it was on no scale we know (a word, or a number of unknown scale). */
  written?: string;
}

/** One written severity: a word (first word decides: `High (security)`), an emoji, `P1`, `[P1]`. */
function fromWord(raw: string): Severity | undefined {
  const text = raw.trim().toLowerCase();
  for (const [e, sev] of EMOJI) if (text.startsWith(e)) return WORDS.get(wordsOf(text)[0] ?? '') ?? sev;
  const words = wordsOf(text);
  return WORDS.get(words.slice(0, 2).join(' ')) ?? WORDS.get(words[0] ?? '');
}

/** The words of a severity as written, without brackets, emoji or punctuation around them. */
function wordsOf(text: string): string[] {
  return text
    .replace(/[_]/g, ' ')
    .split(/[^a-z0-9-]+/)
    .map((w) => w.replace(/^-+|-+$/g, ''))
    .filter(Boolean);
}

/** Where a finding's severity is written, in the order they are tried. */
const SEVERITY_KEYS = [
  'severity',
  'severity_level',
  'severityLevel',
  'level',
  'priority',
  'importance',
  'impact',
  'risk',
  'criticality',
] as const;

/** A severity number as written under one of the severity keys (Codex's `priority` aside). */
function numbersOf(fields: Record<string, unknown>): number[] {
  return SEVERITY_KEYS.filter((k) => k !== 'priority')
    .map((k) => fields[k])
    .filter((v): v is number => typeof v === 'number');
}

/**
 * True when a reply's severity numbers are on a scale out of 10: one of them is above 5 (and none
 * above 10). A number alone does not say which way its scale runs: recorded replies grade 1-10 with
 * 10 the most severe (Llama 3.1, Claude 3, GPT-4o under kaizen's prompt) and 1-5 with 1 the most
 * severe (Qwen3.6 under Gito's: "1 — Critical"). Only a number above 5 rules the short scale out;
 * below that the numbers are on no scale we know, and a finding reads as blocking (fail closed).
 */
export function readsOutOfTen(items: unknown[]): boolean {
  const all = items.flatMap((i) =>
    i !== null && typeof i === 'object' ? numbersOf(i as Record<string, unknown>) : [],
  );
  return all.some((n) => n > 5) && all.every((n) => n <= 10);
}

/**
 * The severity of a finding from its fields: `severity` / `severity_level` (a word, or a number on
 * the reply's scale out of 10: see `readsOutOfTen`), `level`, `priority` (a word, `P1`, or Codex's
 * integer 0–3), `importance`, `impact`, `risk`; else a `[P1]` or emoji tag at the start of its
 * title or claim. Unknown or missing: blocking, `known: false`, with what was written.
 */
export function severityOf(
  fields: Record<string, unknown>,
  heads: (string | undefined)[],
  outOfTen = false,
): SeverityRead {
  let written: string | undefined;
  for (const key of SEVERITY_KEYS) {
    const v = fields[key];
    if (key === 'priority' && typeof v === 'number' && Number.isInteger(v) && v >= 0)
      return { severity: PRIORITY[Math.min(v, 3)] as Severity, known: true };
    if (typeof v === 'number') {
      const ten = outOfTen && key !== 'priority' ? fromTen(v) : undefined;
      if (ten) return { severity: ten, known: true };
      written ??= String(v);
    }
    if (typeof v === 'string' && v.trim()) {
      const sev = fromWord(v);
      if (sev) return { severity: sev, known: true };
      written ??= v.trim().slice(0, 100);
    }
  }
  for (const head of heads) {
    const tag = head === undefined ? undefined : /^\W{0,4}(?:\[\s*)?(p[0-4]|[^\s\w[\]*]{1,2})/iu.exec(head.trim());
    const sev = tag?.[1] ? fromWord(tag[1]) : undefined;
    if (sev) return { severity: sev, known: true };
  }
  return { severity: 'blocking', known: false, ...(written === undefined ? {} : { written }) };
}
