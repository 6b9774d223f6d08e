/**
 * Supersession between decision records (issue 16), as pure text functions so the extension's
 * decision-record writer and the tests use the same rules. A meeting that was briefed with earlier
 * records (context items of kind `decision`) can say a new decision replaces one, with a line
 * `SUPERSEDES: <record path>`; on Accept both records get a link to the other.
 */
import type { MeetingState } from './state';

const SUPERSEDES_LINE = /^\s*SUPERSEDES:\s*(\S+)\s*$/gim;

/**
 * Paths of the earlier records the meeting's outcome replaces: those named by a `SUPERSEDES:`
 * line in the digest or in the last round's contributions, and attached as decisions (a model
 * cannot make Accept edit a file the meeting was not briefed with).
 */
export function supersededRecords(s: MeetingState): string[] {
  const known = new Set((s.context?.items ?? []).filter((i) => i.kind === 'decision').map((i) => i.path));
  const last = [...s.rounds].reverse().find((r) => Object.keys(r.contributions).length > 0);
  const texts = [s.digest?.text ?? '', ...Object.values(last?.contributions ?? {}).map((m) => m.text)];
  const out = new Set<string>();
  for (const t of texts)
    for (const m of t.matchAll(SUPERSEDES_LINE)) {
      const p = (m[1] ?? '').replace(/^<|>$|[`"']/g, '');
      if (known.has(p)) out.add(p);
    }
  return [...out].sort();
}

/** A relative link from the record at `from` to the one at `to` (workspace-relative, `/` separators). */
function relLink(from: string, to: string): string {
  const a = from.split('/').slice(0, -1);
  const b = to.split('/');
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return [...a.slice(i).map(() => '..'), ...b.slice(i)].join('/');
}

function titleOf(text: string, fallback: string): string {
  return /^#\s+(.+)$/m.exec(text)?.[1]?.trim() ?? fallback;
}

/** Markdown link text: brackets and line breaks would end the link early. */
const linkText = (t: string): string => t.replace(/[[\]\\\n\r]/g, ' ').trim();

/** Sets a record's status, in whichever format it uses (front matter, `- Status:` bullet, `## Status` section). */
function setStatus(text: string, status: string): string {
  const lines = text.split('\n');
  if (lines[0]?.trim() === '---') {
    const end = lines.indexOf('---', 1);
    const at = lines.findIndex((l, i) => i > 0 && i < end && /^status\s*:/i.test(l));
    if (end > 0 && at > 0) lines[at] = `status: "${status.replace(/"/g, "'")}"`;
    else if (end > 0) lines.splice(end, 0, `status: "${status.replace(/"/g, "'")}"`);
    if (end > 0) return lines.join('\n');
  }
  const bullet = lines.findIndex((l) => /^\s*[*-]\s*Status\s*:/i.test(l));
  if (bullet >= 0) {
    lines[bullet] = (lines[bullet] as string).replace(/:.*$/, `: ${status}`);
    return lines.join('\n');
  }
  const section = lines.findIndex((l) => /^##\s+Status\s*$/i.test(l));
  if (section >= 0) {
    const body = lines.findIndex((l, i) => i > section && l.trim() !== '');
    if (body > 0 && !(lines[body] as string).startsWith('#')) lines[body] = status;
    else lines.splice(section + 1, 0, '', status);
    return lines.join('\n');
  }
  const h1 = lines.findIndex((l) => /^#\s/.test(l));
  lines.splice(h1 + 1, 0, '', `Status: ${status}`);
  return lines.join('\n');
}

/** Adds `line` under the title (after a MADR bullet list, if any), once. */
function addUnderTitle(text: string, line: string): string {
  const lines = text.split('\n');
  const h1 = lines.findIndex((l) => /^#\s/.test(l));
  let at = h1 + 1;
  while (at < lines.length && (lines[at]?.trim() === '' || /^\s*[*-]\s*\w[\w ]*:/.test(lines[at] ?? ''))) at++;
  // Back over trailing blank lines so the new line joins the bullet list (or follows the title).
  while (at > h1 + 1 && lines[at - 1]?.trim() === '') at--;
  const bullets = at > h1 + 1 && /^\s*[*-]/.test(lines[at - 1] ?? '');
  lines.splice(at, 0, ...(bullets ? [`- ${line}`] : ['', line]));
  return lines.join('\n');
}

/**
 * Links a new record to the one it supersedes, both ways: the new one gets "Supersedes [old](…)",
 * the old one's status becomes "superseded by [new](…)". Idempotent: a record already linked is
 * returned unchanged. Paths are workspace-relative.
 */
export function linkSupersession(
  newRecordText: string,
  oldRecordText: string,
  paths: { newPath: string; oldPath: string },
): { newText: string; oldText: string } {
  const toOld = relLink(paths.newPath, paths.oldPath);
  const toNew = relLink(paths.oldPath, paths.newPath);
  const newText = newRecordText.includes(`](${toOld})`)
    ? newRecordText
    : addUnderTitle(newRecordText, `Supersedes: [${linkText(titleOf(oldRecordText, paths.oldPath))}](${toOld})`);
  const oldText = oldRecordText.includes(`](${toNew})`)
    ? oldRecordText
    : setStatus(oldRecordText, `superseded by [${linkText(titleOf(newRecordText, paths.newPath))}](${toNew})`);
  return { newText, oldText };
}
