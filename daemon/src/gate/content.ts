/**
 * The gate's rules on content: secretlint's recommended preset (a maintained detector: cloud,
 * GitHub, Slack, npm, OpenAI keys, basic auth, connection strings, private keys) plus the patterns
 * it has none for (JWTs, a `Bearer` token, a long random value assigned to a key, token or
 * password). A private key refuses the whole text; every other finding is redacted in place, so
 * the rest of the file, and its line numbers, still reach the room.
 */
import { performance } from 'node:perf_hooks';
import { lintSource } from '@secretlint/core';
import { creator as recommended } from '@secretlint/secretlint-rule-preset-recommend';

/** The prefix of the performance marks secretlint's core sets on every lint and rule. */
export const SECRETLINT_MARK = '@core>';

/**
 * secretlint 11 marks every lint and every rule with `performance.mark`, and its profiler's
 * observer keeps each mark for the life of the process and scans them all on the next one
 * (secretlint/secretlint#1633 and #1653; the fix, #1673, is in secretlint 13, which needs Node 22):
 * in one process a lint costs more with every lint before it. Reading 2,000 decision records took
 * twelve minutes, and a daemon slowed and grew with every file it screened. Its marks are not
 * recorded, so the profiler keeps and scans nothing; no other code here sets a mark.
 */
function dropSecretlintMarks(): void {
  const mark = performance.mark.bind(performance);
  performance.mark = ((name: string, options?: Parameters<typeof performance.mark>[1]) =>
    name.startsWith(SECRETLINT_MARK) ? undefined : mark(name, options)) as typeof performance.mark;
}
dropSecretlintMarks();

export interface Redaction {
  /** 1-based line of the text the finding starts on. */
  line: number;
  /** The rule that found it (`github`, `jwt`, `token-assignment`, ...). */
  rule: string;
}

export type Screened = { ok: true; text: string; redacted: Redaction[] } | { ok: false; reason: string };

/** What replaces a secret in place. */
export const redactionMark = (rule: string): string => `[redacted by Roundtable: ${rule}]`;

/** The header of a PEM private key (RSA, EC, OPENSSH, ENCRYPTED, PGP ... PRIVATE KEY BLOCK). */
const PRIVATE_KEY_BLOCK = /-{5}BEGIN[A-Z0-9 ]*PRIVATE KEY( BLOCK)?-{5}/;

/**
 * secretlint's recommended rules, each registered on its own without the preset's comment filter:
 * a hostile file could otherwise switch the check off with a `secretlint-disable` comment.
 */
const SECRETLINT_CONFIG = {
  rules: recommended.rules
    .filter((r) => r.meta.id !== '@secretlint/secretlint-rule-filter-comments')
    .map((r) => ({ id: r.meta.id, rule: r })),
};

interface Finding {
  start: number;
  end: number;
  rule: string;
}

/** Shannon entropy in bits per character. */
function entropy(s: string): number {
  const counts = new Map<string, number>();
  for (const c of s) counts.set(c, (counts.get(c) ?? 0) + 1);
  let h = 0;
  for (const n of counts.values()) h -= (n / s.length) * Math.log2(n / s.length);
  return h;
}

/** A value that reads as a random secret, not as code or prose: long, mixed letters and digits, high entropy. */
export function looksRandom(v: string): boolean {
  if (v.length < 16 || !/[0-9]/.test(v) || !/[A-Za-z]/.test(v)) return false;
  if (/^(https?:|\/|\.\.?\/)/.test(v) || /^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)+$/.test(v)) return false;
  return entropy(v) >= 3.3;
}

const JWT = /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g;
const BEARER = /\bBearer\s+([A-Za-z0-9._~+/-]{20,}=*)/g;
/**
 * `API_KEY = "…"`, `token: …`, `password=…`, `"client_secret": "…"`: the name, the operator, the
 * value. The name's runs are bounded, so a long line of identifiers cannot make the scan quadratic.
 */
const ASSIGNMENT =
  /(?<![A-Za-z0-9])[A-Za-z0-9_.-]{0,40}(?:api[_-]?key|apikey|secret|token|passw(?:or)?d|pwd|auth[_-]?key|access[_-]?key|private[_-]?key|credential)[A-Za-z0-9_.-]{0,40}["']?\s*(?::=|=>|[:=])\s*(["'`]?)([^\s"'`,;(){}[\]<>]{16,})\1(?=$|[\s,;"'`)}\]])/gim;

function ownFindings(text: string): Finding[] {
  const out: Finding[] = [];
  for (const m of text.matchAll(JWT)) out.push({ start: m.index, end: m.index + m[0].length, rule: 'jwt' });
  for (const m of text.matchAll(BEARER)) {
    const v = m[1] as string;
    if (!looksRandom(v)) continue;
    const start = m.index + m[0].length - v.length;
    out.push({ start, end: start + v.length, rule: 'bearer-token' });
  }
  for (const m of text.matchAll(ASSIGNMENT)) {
    const v = m[2] as string;
    if (!looksRandom(v)) continue;
    const start = m.index + m[0].length - (m[1] as string).length - v.length;
    out.push({ start, end: start + v.length, rule: 'token-assignment' });
  }
  return out;
}

/**
 * The name secretlint is told: the file's base name with anything but letters, digits, `.`, `_`
 * and `-` replaced. secretlint names its performance marks after the path, and a name holding a
 * line break made it throw after the lint (an unhandled rejection): a path is data, never part of
 * a mark. The base name is kept because a rule may look at it (`.npmrc`).
 */
const lintName = (file: string): string =>
  (file.split('/').pop() ?? '').replace(/[^\w.-]/g, '_').slice(0, 100) || 'file';

async function secretlintFindings(text: string, file: string): Promise<Finding[] | 'private-key'> {
  const r = await lintSource({
    source: { filePath: lintName(file), content: text, contentType: 'text' },
    options: { config: SECRETLINT_CONFIG, noPhysicFilePath: true },
  });
  const out: Finding[] = [];
  for (const m of r.messages) {
    const rule = m.ruleId.replace(/^@secretlint\/secretlint-rule-/, '');
    if (rule === 'privatekey') return 'private-key';
    // npm tokens are `npm_` and 36 letters or digits; the rule also takes underscores, so it
    // flags npm's own settings (`npm_config_dangerously_allow_all_scripts`) in ordinary scripts.
    if (rule === 'npm' && !/^npm_[A-Za-z0-9]{36}$/.test(text.slice(m.range[0], m.range[1]))) continue;
    out.push({ start: m.range[0], end: m.range[1], rule });
  }
  return out;
}

/** Line number (1-based) of each offset, by one scan of the text. */
function lineOf(text: string): (offset: number) => number {
  const starts = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return (offset) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((starts[mid] as number) <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
}

/**
 * Screens one text for secrets: refused (one line) when it holds a private key, otherwise the text
 * with every other finding replaced in place by `[redacted by Roundtable: <rule>]`.
 */
export async function screenContent(text: string, file = 'workspace-file'): Promise<Screened> {
  if (PRIVATE_KEY_BLOCK.test(text)) return { ok: false, reason: 'holds a private key block' };
  const fromLint = await secretlintFindings(text, file);
  if (fromLint === 'private-key') return { ok: false, reason: 'holds a private key (secretlint: privatekey)' };
  const findings = [...fromLint, ...ownFindings(text)].sort((a, b) => a.start - b.start || b.end - a.end);
  // Overlapping findings (secretlint and an assignment on the same token) become one redaction.
  const merged: Finding[] = [];
  for (const f of findings) {
    const last = merged[merged.length - 1];
    if (last && f.start < last.end) last.end = Math.max(last.end, f.end);
    else merged.push({ ...f });
  }
  if (merged.length === 0) return { ok: true, text, redacted: [] };
  const line = lineOf(text);
  let out = '';
  let at = 0;
  const redacted: Redaction[] = [];
  for (const f of merged) {
    out += text.slice(at, f.start) + redactionMark(f.rule);
    at = f.end;
    redacted.push({ line: line(f.start), rule: f.rule });
  }
  return { ok: true, text: out + text.slice(at), redacted };
}
