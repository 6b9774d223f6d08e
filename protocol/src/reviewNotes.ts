/**
 * What a review says about its rules, in plain text, worded once for every output (the terminal,
 * the pull-request comment, the minutes, SARIF, the Problems panel): where the rules were read,
 * the change's own edits to them (reported, never applied), and its exceptions with what each did.
 * Every string here can hold text from the repository or a commit: whoever renders it escapes it.
 */
import type { ReviewRules } from './review';
import type { ExceptionUse } from './reviewOutcome';

/** `the rules in docs/decisions at main (merge base 1a2b3c4)`. */
export function rulesSource(rules: ReviewRules): string {
  return `the rules in ${rules.folder || 'the repository'} at ${rules.label}`;
}

/** A folder as a word a shell takes as it is, or undefined when it would need quoting. */
const plainWord = (p: string): string | undefined => (/^[A-Za-z0-9_./][A-Za-z0-9_./-]*$/.test(p) ? p : undefined);

/**
 * The command that holds the meeting a decision change needs (`roundtable run`, with the records'
 * folder as its context when the folder is a plain word).
 */
function decisionMeetingCommand(rules: ReviewRules): string {
  const folder = plainWord(rules.folder);
  return `roundtable run --mode consensus --topic "Adopt this change's edits to the decision records?"${folder ? ` --context ${folder}` : ''}`;
}

/**
 * The change's edits to the records, said: a heading line, one line per edit, and what to do.
 * Empty when the change edits no record.
 */
export function recordEditLines(
  rules: ReviewRules | undefined,
): { head: string; edits: string[]; then: string; command: string } | undefined {
  const edits = rules?.edits ?? [];
  if (!rules || edits.length === 0) return undefined;
  return {
    head: `This change edits the decision records; its edits are not applied in this review, which holds it to ${rulesSource(rules)}:`,
    edits: [...edits.map((e) => e.what), ...(rules.moreEdits ? [`and ${rules.moreEdits} more record file(s)`] : [])],
    then: 'A change to the decision records is a decision of its own: it needs its own meeting and its own review, merged apart from this change. The meeting:',
    command: decisionMeetingCommand(rules),
  };
}

/** One exception and what it did, in one line. */
export function exceptionLine(e: ExceptionUse): string {
  const named = e.decision ? ` to ${e.decision}` : '';
  if (e.use === 'invalid') return `Exception${named} in ${e.from} not applied: it ${e.invalid ?? 'is invalid'}`;
  if (e.use === 'unused')
    return `Exception${named} in ${e.from} unused: the panel upheld no finding on ${e.decision} (${e.reason})`;
  return `Exception${named} in ${e.from} waived ${e.findings.join(', ')}: ${e.reason}`;
}

/**
 * Everything above for one review as plain lines, in order: where the rules came from, the
 * change's edits to them (an edit's line starts with `  - `), what of them was not read, and the
 * exceptions. The terminal prints them; the minutes list them.
 */
export function reviewNotes(o: { scope?: { rules?: ReviewRules }; exceptions?: readonly ExceptionUse[] }): string[] {
  const rules = o.scope?.rules;
  const out: string[] = [];
  if (rules) out.push(`Rules: ${rulesSource(rules)}.`);
  const edits = recordEditLines(rules);
  if (edits) out.push(edits.head, ...edits.edits.map((e) => `  - ${e}`), `${edits.then} ${edits.command}`);
  for (const u of rules?.unread ?? []) out.push(`Rules not read: ${u.path} ${u.reason}`);
  for (const r of rules?.refused ?? []) out.push(`Rules kept back by the gate: ${r.path} ${r.reason}`);
  for (const e of o.exceptions ?? []) out.push(exceptionLine(e));
  return out;
}
