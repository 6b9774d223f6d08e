/**
 * The gate's rules on content: secretlint's recommended preset (a maintained detector: cloud,
 * GitHub, Slack, npm, OpenAI keys, basic auth, connection strings, private keys) plus the patterns
 * it has none for (JWTs, a `Bearer` token, a long random value assigned to a key, token or
 * password). A private key refuses the whole text; every other finding is redacted in place, so
 * the rest of the file, and its line numbers, still reach the room.
 *
 * The preset's rules are run here, through the rule API secretlint documents for rule authors
 * (`create(context)`, then `file(source)`), not through `@secretlint/core`'s `lintSource`: its
 * profiler is one process-wide PerformanceObserver that keeps every performance mark of the
 * process, scans them all at each mark (so a scan slows with every file the process ever
 * scanned: a 3,000-file change never finished, a long-running daemon only grows), and names its
 * marks after the file path, whose newline or carriage return made a `measure` throw in a promise
 * nobody awaits, killing the process. Nothing here marks, measures or names a path.
 */
import { rules as recommendedRules } from '@secretlint/secretlint-rule-preset-recommend';

/** secretlint's rule API (`@secretlint/types`), as the preset's own rules declare it. */
type Rule = (typeof recommendedRules)[number];
type RuleContext = Parameters<Rule['create']>[0];
type SourceCode = Parameters<NonNullable<ReturnType<Rule['create']>['file']>>[0];

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
 * secretlint's recommended rules that read text, each on its own without the preset's comment
 * filter: a hostile file could otherwise switch the check off with a `secretlint-disable` comment.
 */
const SECRETLINT_RULES = recommendedRules.filter(
  (r) =>
    r.meta.id !== '@secretlint/secretlint-rule-filter-comments' &&
    r.meta.type === 'scanner' &&
    r.meta.supportedContentTypes.some((t) => t === 'text' || t === 'all'),
);

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

/**
 * Letters alone that read as random, not as words or an identifier (`max_completion_tokens`,
 * `getPasswordFromVault`): a run of 20 or more letters (`sk-live-` and the like before it), both
 * cases, and capitals side by side more than once, which camelCase and prose never have (a random
 * 32-letter key has about eight such pairs).
 */
function lettersLookRandom(v: string): boolean {
  if (!/^[A-Za-z._-]+$/.test(v)) return false;
  return v
    .split(/[._-]/)
    .some((run) => run.length >= 20 && /[a-z]/.test(run) && (run.match(/[A-Z](?=[A-Z])/g)?.length ?? 0) >= 2);
}

/**
 * A value that reads as a random secret, not as code or prose: long, mixed letters and digits, high
 * entropy. `quoted`: a string literal assigned to a key, token or password name is a value, never a
 * reference to code, so random-looking letters alone suffice (a 32-letter API key holds no digit one
 * time in 250).
 */
export function looksRandom(v: string, quoted = false): boolean {
  if (quoted && !/[0-9]/.test(v)) return lettersLookRandom(v) && entropy(v) >= 3.3;
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
    if (!looksRandom(v, m[1] !== '')) continue;
    const start = m.index + m[0].length - (m[1] as string).length - v.length;
    out.push({ start, end: start + v.length, rule: 'token-assignment' });
  }
  return out;
}

/** A rule's message as secretlint's core would give it: only its id is read here. */
const translator: RuleContext['createTranslator'] = (messages) => (messageId, props) => ({
  message: messages[messageId]?.en(props) ?? String(messageId),
  messageId: String(messageId),
  data: props,
});

/**
 * The text as a rule reads it: its content, and no file path (nothing reads a file from disk,
 * nothing is decided by a name). Positions as secretlint gives them: 1-based lines, 0-based columns.
 */
function sourceOf(text: string): SourceCode {
  let starts: number[] | undefined;
  const lineStarts = () => (starts ??= lineStartsOf(text));
  const indexToPosition = (index: number) => {
    const line = lineAt(lineStarts(), index);
    return { line, column: index - (lineStarts()[line - 1] as number) };
  };
  const positionToIndex = (pos: { line: number; column: number }) =>
    (lineStarts()[pos.line - 1] ?? text.length) + pos.column;
  return {
    hasBOM: false,
    content: text,
    filePath: undefined,
    physicalFilePath: undefined,
    contentType: 'text',
    ext: '',
    getFilePath: () => undefined,
    getPhysicalFilePath: () => undefined,
    indexToPosition,
    positionToIndex,
    rangeToLocation: (range) => ({ start: indexToPosition(range[0]), end: indexToPosition(range[1]) }),
    locationToRange: (loc) => [positionToIndex(loc.start), positionToIndex(loc.end)],
  };
}

async function secretlintFindings(text: string): Promise<Finding[] | 'private-key'> {
  const source = sourceOf(text);
  const out: Finding[] = [];
  let privateKey = false;
  for (const r of SECRETLINT_RULES) {
    const rule = r.meta.id.replace(/^@secretlint\/secretlint-rule-/, '');
    const context: RuleContext = {
      sharedOptions: {},
      createTranslator: translator,
      ignore: () => undefined,
      report: ({ range }) => {
        if (rule === 'privatekey') privateKey = true;
        // npm tokens are `npm_` and 36 letters or digits; the rule also takes underscores, so it
        // flags npm's own settings (`npm_config_dangerously_allow_all_scripts`) in ordinary scripts.
        else if (rule !== 'npm' || /^npm_[A-Za-z0-9]{36}$/.test(text.slice(range[0], range[1])))
          out.push({ start: range[0], end: range[1], rule });
      },
    };
    await r.create(context, {}).file?.(source);
    if (privateKey) return 'private-key';
  }
  return out;
}

/** Where each line of a text starts, by one scan: one more than the text's newlines. */
export function lineStartsOf(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

/** The 1-based line an offset is on, by binary search of the line starts. */
function lineAt(starts: number[], offset: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((starts[mid] as number) <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}

/**
 * Screens one text for secrets: refused (one line) when it holds a private key, otherwise the text
 * with every other finding replaced in place by `[redacted by Roundtable: <rule>]`.
 */
export async function screenContent(text: string): Promise<Screened> {
  if (PRIVATE_KEY_BLOCK.test(text)) return { ok: false, reason: 'holds a private key block' };
  const fromLint = await secretlintFindings(text);
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
  const starts = lineStartsOf(text);
  let out = '';
  let at = 0;
  const redacted: Redaction[] = [];
  for (const f of merged) {
    out += text.slice(at, f.start) + redactionMark(f.rule);
    at = f.end;
    redacted.push({ line: lineAt(starts, f.start), rule: f.rule });
  }
  return { ok: true, text: out + text.slice(at), redacted };
}
