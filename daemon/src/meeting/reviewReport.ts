/**
 * How a review reads in the minutes and the digest: findings and their verdicts, not a decision
 * between options. Plain text; whoever renders it escapes it (every finding is model text).
 */
import type { MeetingState, Verdict } from '@roundtable/protocol';
import { reviewOutcome } from '@roundtable/protocol';

const ORDER: readonly Verdict[] = ['PROVEN', 'CONTESTED', 'INSUFFICIENT_EVIDENCE', 'REFUTED'];

/** `5 findings: 1 PROVEN (O1), 4 REFUTED (O2, O3, O4, O5; 3 before the vote)`, or that none were found. */
export function reviewSummary(s: MeetingState): string {
  const { findings } = reviewOutcome(s, 'blocking');
  if (findings.length === 0) return 'no findings: the reviewers found nothing in the change';
  const parts = ORDER.flatMap((v) => {
    const these = findings.filter((f) => f.verdict === v);
    if (these.length === 0) return [];
    const before = these.filter((f) => f.refuted !== undefined).length;
    return [
      `${these.length} ${v} (${these.map((f) => f.id).join(', ')}${before ? `; ${before} before the vote` : ''})`,
    ];
  });
  return `${findings.length} finding${findings.length === 1 ? '' : 's'}: ${parts.join(', ')}`;
}

/** The next steps of a review: fix what was proven, look again at what stayed contested. */
export function reviewNextSteps(s: MeetingState): string[] {
  const { findings } = reviewOutcome(s, 'blocking');
  const proven = findings.filter((f) => f.verdict === 'PROVEN');
  const contested = findings.filter((f) => f.verdict === 'CONTESTED');
  const label = (id: string) => (s.options.find((o) => o.id === id)?.label ?? id).replace(/[.\s]+$/, '');
  return [
    ...proven.map((f) => `Fix ${f.id}: ${label(f.id)}.`),
    ...contested.map((f) => `The panel is split on ${f.id}: read it yourself (${label(f.id)}).`),
    ...(proven.length + contested.length === 0 ? ['No finding was proven: nothing to fix.'] : []),
  ];
}

/** Who voted against a finding's verdict, for the digest's dissent line. */
export function reviewDissent(s: MeetingState): string {
  const { findings } = reviewOutcome(s, 'blocking');
  const against = findings.flatMap((f) =>
    f.votes
      .filter(
        (v) => (f.verdict === 'PROVEN' && v.vote === 'reject') || (f.verdict === 'REFUTED' && v.vote === 'accept'),
      )
      .map((v) => `${v.worker} ${v.vote}s ${f.id}, ${f.verdict} (${v.confidence.toFixed(2)}): ${v.rationale}`),
  );
  return against.length > 0 ? against.join('; ') : 'none: no vote went against a verdict';
}
