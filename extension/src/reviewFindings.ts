/**
 * A review's findings as Problems-panel diagnostics, worked out without VS Code (so it is unit
 * tested): each PROVEN and CONTESTED finding on its file and lines, the severity mapped (a
 * CONTESTED one a step lower), the claim and the vote in the message, the decision id or defect
 * class as the code, and the decision record it cites for the related information and the quick
 * fix. Everything in a finding came from a model: the claim is folded onto one visible line and
 * capped, and a file or record path that is not a plain workspace-relative path is left out.
 */
import type { Finding, ReviewScope, ReviewedFinding, VoteKind } from '@roundtable/protocol';
import { oneLine } from '@roundtable/protocol/markdown';
import { waiverText } from '@roundtable/protocol/reviewOutcome';

/** VS Code's DiagnosticSeverity, by name (the adapter maps it). */
export type DiagnosticLevel = 'error' | 'warning' | 'information' | 'hint';

export interface FindingDiagnostic {
  /** Workspace-relative, `/`-separated. */
  file: string;
  /** 0-based, inclusive. */
  startLine: number;
  endLine: number;
  level: DiagnosticLevel;
  verdict: 'PROVEN' | 'CONTESTED';
  /** An exception of the change waives it: shown as information, never as an error. */
  waived?: true;
  message: string;
  /** The decision id, or the defect class. */
  code: string;
  /** The decision record the finding cites, when the review's scope lists it. */
  record?: { id: string; path: string };
}

export const DIAGNOSTIC_SOURCE = 'Roundtable';
/** Longest claim shown in a message (the Problems panel shows one line). */
export const MAX_CLAIM_CHARS = 300;
/** Highest line a diagnostic is put on (a model can say any number; the schema only says ≥ 1). */
const MAX_LINE = 10_000_000;

const LEVELS: readonly DiagnosticLevel[] = ['error', 'warning', 'information', 'hint'];
const LEVEL_OF = { blocking: 'error', major: 'warning', minor: 'information', note: 'hint' } as const;

/** One step less severe (a hint stays a hint). */
function lower(level: DiagnosticLevel): DiagnosticLevel {
  return LEVELS[Math.min(LEVELS.indexOf(level) + 1, LEVELS.length - 1)]!;
}

/** A path the workspace holds, as written: relative, no `..`, no drive, no control or bidi character. */
export function plainRelativePath(p: string): string | undefined {
  const slashed = p.replace(/\\/g, '/').replace(/^\.\//, '');
  if (!slashed || slashed.length > 1_000 || slashed.startsWith('/') || /^[A-Za-z]:/.test(slashed)) return undefined;
  if (slashed.split('/').some((part) => part === '..')) return undefined;
  // eslint-disable-next-line no-control-regex -- control characters are what is refused
  if (/[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/.test(slashed)) return undefined;
  return slashed;
}

/** Model text on one visible line, at most `max` characters (never cutting a surrogate pair). */
export function shownClaim(text: string, max = MAX_CLAIM_CHARS): string {
  // Cut first (oneLine is linear, but a 2 MB claim need not be cleaned in full to show 300 characters).
  const line = oneLine(text.length > max * 4 ? text.slice(0, max * 4) : text);
  if (line.length <= max) return line;
  const cut = /[\ud800-\udbff]$/.test(line.slice(0, max - 1)) ? max - 2 : max - 1;
  return `${line.slice(0, cut).trimEnd()}…`;
}

/** "PROVEN 3–0", "CONTESTED 2–1, 1 abstained": accepting votes against rejecting ones. */
export function voteLine(f: Pick<ReviewedFinding, 'verdict' | 'votes'>): string {
  const n = (k: VoteKind) => f.votes.filter((v) => v.vote === k).length;
  const abstained = n('abstain');
  return `${f.verdict} ${n('accept')}–${n('reject')}${abstained ? `, ${abstained} abstained` : ''}`;
}

function lineRange(f: Finding): { startLine: number; endLine: number } {
  const clamp = (n: number) => (Number.isFinite(n) ? Math.min(Math.max(Math.trunc(n), 1), MAX_LINE) : 1);
  const [a, b] = [clamp(f.lines.start), clamp(f.lines.end)];
  return { startLine: Math.min(a, b) - 1, endLine: Math.max(a, b) - 1 };
}

/**
 * The diagnostics of a review: PROVEN and CONTESTED findings only (REFUTED and
 * INSUFFICIENT_EVIDENCE are not problems), in the order given (the outcome sorts by severity).
 */
export function findingDiagnostics(
  findings: readonly ReviewedFinding[],
  scope: Pick<ReviewScope, 'decisions'> | undefined,
): FindingDiagnostic[] {
  const out: FindingDiagnostic[] = [];
  for (const f of findings) {
    if (f.verdict !== 'PROVEN' && f.verdict !== 'CONTESTED') continue;
    const file = plainRelativePath(f.file);
    if (!file) continue;
    const contested = f.verdict === 'CONTESTED';
    const level = f.waived ? 'information' : contested ? lower(LEVEL_OF[f.severity]) : LEVEL_OF[f.severity];
    const cited = f.decision ? scope?.decisions.find((d) => d.id === f.decision) : undefined;
    const recordPath = cited ? plainRelativePath(cited.path) : undefined;
    const claim = shownClaim(f.claim) || '(no claim given)';
    out.push({
      file,
      ...lineRange(f),
      level,
      verdict: f.verdict,
      ...(f.waived ? { waived: true as const } : {}),
      message: `${f.waived ? `Waived (${shownClaim(waiverText(f.waived), 200)}): ` : contested ? 'Contested: ' : ''}${claim} (${voteLine(f)})`,
      code: shownClaim(f.decision ?? f.defect ?? 'finding', 100),
      ...(cited && recordPath ? { record: { id: shownClaim(cited.id, 100), path: recordPath } } : {}),
    });
  }
  return out;
}
