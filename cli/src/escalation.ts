/** When a consensus meeting waits for the human: what the terminal says, and asking the person at it. */
import * as path from 'node:path';
import { createInterface } from 'node:readline/promises';
import type { MeetingState, Resolution } from '@roundtable/protocol';
import { findOption } from '@roundtable/protocol';
import { oneLine } from '@roundtable/protocol/markdown';
import { terminalSafe } from '@roundtable/protocol/terminal';

/** Exit code of a run that stopped to wait for a human decision (the meeting stays resumable). */
export const EXIT_AWAITING_HUMAN = 3;

/** A path as one shell word. */
function shellWord(p: string): string {
  return /^[\w./:@-]+$/.test(p) ? p : `'${p.replace(/'/g, `'\\''`)}'`;
}

/**
 * What the terminal shows when a meeting stops for the human: why, the report written for the
 * decision (Status: blocked), the options, and the command that resumes it (with the same --out,
 * so the same report is updated).
 */
export function escalationMessage(
  s: MeetingState,
  where: { report?: string | undefined; outDir?: string } = {},
): string {
  const out =
    where.outDir && path.resolve(where.outDir) !== path.resolve('docs', 'roundtable')
      ? ` --out ${shellWord(where.outDir)}`
      : '';
  return terminalSafe(
    `roundtable: meeting ${s.meetingId} needs a human decision: ${oneLine(s.escalation?.reasons.join('; ') ?? '')}.\n` +
      (where.report ? `  report: ${oneLine(where.report)}\n` : '') +
      `  options: ${s.options.map((o) => `${o.id} (${oneLine(o.label)})`).join(', ')}\n` +
      `  resume with: roundtable resolve ${s.meetingId} --pick <option> | --another-round "<instruction>" | --defer${out}\n`,
  );
}

/** Asks the person at the terminal how to settle an escalation. */
export async function askHuman(
  s: MeetingState,
  out: NodeJS.WritableStream,
  report: string | undefined,
): Promise<Resolution | undefined> {
  const rl = createInterface({ input: process.stdin, output: out });
  try {
    out.write(terminalSafe(`\nThe meeting needs your decision: ${oneLine(s.escalation?.reasons.join('; ') ?? '')}\n`));
    if (report) out.write(terminalSafe(`The report so far (votes, matrix, conflicts): ${report}\n`));
    for (const o of s.options) out.write(terminalSafe(`  ${o.id}: ${oneLine(o.label)}\n`));
    for (;;) {
      const line = (
        await rl.question('Pick an option id, "r <instruction>" for another round, or "d" to defer: ')
      ).trim();
      if (/^d(efer)?$/i.test(line)) return { action: 'defer' };
      const again = /^r(?:ound)?\s+(.+)$/i.exec(line);
      if (again?.[1]) return { action: 'another_round', instruction: again[1] };
      const o = findOption(s, line);
      if (o) return { action: 'pick', option: o.id };
      out.write(`"${line}" is not one of ${s.options.map((x) => x.id).join(', ')}, r <instruction> or d\n`);
    }
  } catch {
    return undefined;
  } finally {
    rl.close();
  }
}
