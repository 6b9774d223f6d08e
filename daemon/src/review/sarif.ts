/**
 * A review as SARIF 2.1.0 for GitHub code scanning (`roundtable review --sarif FILE`), from one
 * ReviewOutcome. What GitHub documents it needs ("SARIF support for code scanning",
 * https://docs.github.com/en/code-security/reference/code-scanning/sarif-files/sarif-support-for-code-scanning):
 * `tool.driver.name`, a `ruleId` the same across analyses, a `message.text`, a repository-relative
 * `artifactLocation.uri` that is the same across runs, `region.startLine`, and `partialFingerprints`
 * so the same problem on the next push stays one alert. Ours hash the rule, the file and the
 * finding's quoted lines (or its claim) normalised, never its line numbers: an edit above the
 * finding moves the lines, not the alert. Only PROVEN and CONTESTED findings are results.
 */
import { createHash } from 'node:crypto';
import type { ReviewOutcome, ReviewScope, ReviewedFinding, Severity } from '@roundtable/protocol';
import { invisibleNames, waiverText } from '@roundtable/protocol';
import { DAEMON_VERSION } from '../daemon/handlers';

/** Where people read about the tool (SARIF's tool.driver.informationUri must be absolute). */
export const INFORMATION_URI = 'https://github.com/roundtable/roundtable';
/** The key of our fingerprint in `partialFingerprints`; the version changes only if the hash does. */
export const FINGERPRINT_KEY = 'roundtableFinding/v1';
const SCHEMA_URI = 'https://json.schemastore.org/sarif-2.1.0.json';

const LEVEL: Record<Severity, 'error' | 'warning' | 'note'> = {
  blocking: 'error',
  major: 'warning',
  minor: 'note',
  note: 'note',
};

/** The findings a report shows: those the panel upheld or split on; refuted ones never. */
export function reportedFindings(outcome: ReviewOutcome): ReviewedFinding[] {
  return outcome.findings.filter((f) => f.verdict === 'PROVEN' || f.verdict === 'CONTESTED');
}

/** The rule a finding falls under: the decision it breaks, else its defect class. */
export function ruleIdOf(f: Pick<ReviewedFinding, 'decision' | 'defect'>): string {
  return f.decision ? `decision/${f.decision}` : `defect/${(f.defect ?? 'unclassified').trim().toLowerCase()}`;
}

/**
 * Quoted lines or a claim as compared across pushes: diff markers at line starts dropped, case and
 * every run of blanks folded, so re-indenting or a model's spacing does not make a new alert.
 */
export function normalizedEvidence(text: string): string {
  return text
    .split('\n')
    .map((l) => l.replace(/^[+\- ]/, '').trim())
    .filter(Boolean)
    .join(' ')
    .replace(/\s+/g, ' ')
    .toLowerCase();
}

/** The finding's fingerprint: sha256 of its rule, file and normalised quote (else claim); no line numbers. */
export function fingerprintOf(f: ReviewedFinding): string {
  const evidence = normalizedEvidence(f.quote?.trim() ? f.quote : f.claim);
  return createHash('sha256')
    .update(`${ruleIdOf(f)}\0${f.file}\0${evidence}`, 'utf8')
    .digest('hex');
}

/** A repository-relative path as a URI reference: each segment percent-encoded, `/` kept. */
export function pathUri(file: string): string {
  return file.split('/').map(encodeURIComponent).join('/');
}

/** PascalCase of a title for a rule's `name` (SARIF: an identifier-like name). */
function ruleName(text: string, fallback: string): string {
  const name = text
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('')
    .slice(0, 80);
  return /^[A-Za-z]/.test(name) ? name : fallback;
}

interface Rule {
  id: string;
  name: string;
  shortDescription: { text: string };
  helpUri?: string;
  defaultConfiguration: { level: 'error' | 'warning' | 'note' };
  properties: Record<string, unknown>;
}

function rulesOf(
  scope: ReviewScope | undefined,
  findings: ReviewedFinding[],
  recordUri: (p: string) => string,
): Rule[] {
  const rules = new Map<string, Rule>();
  for (const d of scope?.decisions ?? []) {
    if (d.status !== 'accepted') continue;
    rules.set(`decision/${d.id}`, {
      id: `decision/${d.id}`,
      name: ruleName(d.title, `Decision${d.id.replace(/[^A-Za-z0-9]/g, '')}`),
      shortDescription: { text: `Decision ${d.id}: ${d.title}` },
      helpUri: recordUri(d.path),
      defaultConfiguration: { level: 'error' },
      properties: { tags: ['decision'], path: d.path, status: d.status },
    });
  }
  for (const f of findings) {
    const id = ruleIdOf(f);
    if (rules.has(id)) continue;
    const what = id.slice(id.indexOf('/') + 1);
    rules.set(id, {
      id,
      name: ruleName(what, 'Defect'),
      shortDescription: {
        text: f.decision ? `Decision ${f.decision} (not in the rulebook read)` : `Defect class: ${what}`,
      },
      defaultConfiguration: { level: 'warning' },
      properties: { tags: [f.decision ? 'decision' : 'defect'] },
    });
  }
  return [...rules.values()];
}

function resultOf(f: ReviewedFinding, ruleIndex: number): Record<string, unknown> {
  const cast = f.votes.filter((v) => v.vote !== 'abstain');
  const confidence = cast.length ? cast.reduce((n, v) => n + v.confidence, 0) / cast.length : undefined;
  const cites = f.decision ? ` (breaks decision ${f.decision})` : f.defect ? ` (${f.defect})` : '';
  const odd = invisibleNames(f.file);
  const name = odd.length ? ` The file's name holds ${odd.join(', ')}.` : '';
  const waived = f.waived ? `, ${waiverText(f.waived)}` : '';
  return {
    ruleId: ruleIdOf(f),
    ruleIndex,
    // A waived finding fails nothing: at `note` it fails no code-scanning check either, whether or
    // not the consumer reads `suppressions` (not every one does).
    level: f.waived ? 'note' : LEVEL[f.severity],
    message: { text: `${f.claim}${cites} — panel verdict ${f.verdict}${waived}.${name}` },
    locations: [
      {
        physicalLocation: {
          artifactLocation: { uri: pathUri(f.file) },
          region: { startLine: f.lines.start, endLine: Math.max(f.lines.start, f.lines.end) },
        },
      },
    ],
    partialFingerprints: { [FINGERPRINT_KEY]: fingerprintOf(f) },
    // SARIF 2.1.0 §3.35: an `external` suppression (said outside the source: a commit's trailer or
    // the pull request), `accepted`, with the exception's reason as its justification.
    ...(f.waived
      ? {
          suppressions: [
            {
              kind: 'external',
              status: 'accepted',
              justification: waiverText(f.waived),
              properties: { from: f.waived.from, ...(f.waived.commit ? { commit: f.waived.commit } : {}) },
            },
          ],
        }
      : {}),
    properties: {
      verdict: f.verdict,
      ...(f.waived ? { waived: true } : {}),
      severity: f.severity,
      findingId: f.id,
      ...(confidence !== undefined ? { confidence: Math.round(confidence * 1000) / 1000 } : {}),
      votes: f.votes.map((v) => ({ worker: v.worker, vote: v.vote, confidence: v.confidence })),
      ...(f.proposedBy?.length ? { proposedBy: f.proposedBy } : {}),
    },
  };
}

/**
 * The SARIF log of one review. `recordUri`: the absolute URI of a decision record from its
 * workspace path (a blob URL on GitHub, else a file URL), each rule's `helpUri`.
 */
export function reviewSarif(outcome: ReviewOutcome, opts: { recordUri: (path: string) => string }): object {
  const findings = reportedFindings(outcome);
  const rules = rulesOf(outcome.scope, findings, opts.recordUri);
  const index = new Map(rules.map((r, i) => [r.id, i]));
  return {
    $schema: SCHEMA_URI,
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: { name: 'Roundtable', version: DAEMON_VERSION, informationUri: INFORMATION_URI, rules },
        },
        results: findings.map((f) => resultOf(f, index.get(ruleIdOf(f)) ?? 0)),
        properties: {
          exit: outcome.exit,
          ...(outcome.why ? { why: outcome.why } : {}),
          unread: outcome.scope?.unread ?? [],
          unreadAllowed: outcome.scope?.unreadAllowed ?? false,
          ...(outcome.scope?.rules ? { rules: outcome.scope.rules } : {}),
          exceptions: outcome.exceptions ?? [],
        },
      },
    ],
  };
}
