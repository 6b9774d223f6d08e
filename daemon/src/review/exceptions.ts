/**
 * The exceptions a change carries (protocol/src/decisionException.ts): `Decision-Exception:`
 * trailers of its commits, read here, and the lines the client passed (the pull request's body,
 * `--exception`), each resolved to the rulebook's record it names. An exception with no reason or
 * naming no record of the rulebook is kept, marked invalid with why: it is reported, never applied.
 */
import type { DecisionException, ReviewRequest, ReviewScope } from '@roundtable/protocol';
import { COMMIT_ID_PATTERN, EXCEPTION_KEY, MAX_EXCEPTIONS, parseException } from '@roundtable/protocol';
import { git } from '../gate/git';
import { clipLine } from '../meeting/digest';
import { resolveCitation } from '../decisions/ids';

/** Most commits of the change read for trailers (a longer branch: the oldest are read, and the rest said). */
const MAX_COMMITS = 5_000;

interface Said {
  line: string;
  from: string;
  commit?: string;
}

/**
 * The trailers' values of the commits `against..HEAD`, oldest first. `git log -z` ends each commit
 * with a NUL; inside, the hash and each value (unfolded: one line) end with a newline. A message
 * cannot hold a NUL, so no value can break the framing.
 */
async function trailers(root: string, against: string): Promise<{ said: Said[]; note?: string }> {
  if (!COMMIT_ID_PATTERN.test(against)) return { said: [] };
  const r = await git(root, [
    'log',
    '-z',
    '--no-color',
    '--reverse',
    `--max-count=${MAX_COMMITS}`,
    `--format=%H%n%(trailers:key=${EXCEPTION_KEY},valueonly,unfold)`,
    `${against}..HEAD`,
  ]);
  if (r.code !== 0) return { said: [], note: `could not be looked for: git log failed on the change's commits` };
  const said: Said[] = [];
  const commits = r.stdout.split('\0').filter((c) => c.trim() !== '');
  for (const c of commits) {
    const [hash = '', ...values] = c.replace(/^\n/, '').split('\n');
    if (!COMMIT_ID_PATTERN.test(hash)) continue;
    for (const v of values) if (v.trim()) said.push({ line: v, from: `commit ${hash.slice(0, 7)}`, commit: hash });
  }
  return {
    said,
    ...(commits.length >= MAX_COMMITS ? { note: `was not looked for past the oldest ${MAX_COMMITS} commits` } : {}),
  };
}

/** One exception as the review takes it: parsed, and resolved to the rulebook's id of the record it names. */
function taken(s: Said, decisions: ReviewScope['decisions'], rulesAt: string): DecisionException {
  const p = parseException(s.line);
  // Within the scope's schema (a meeting's log never holds what its reader would refuse).
  const where = { from: clipLine(s.from, 200), ...(s.commit ? { commit: s.commit } : {}) };
  const invalid = (why: string) => clipLine(why, 300);
  if ('invalid' in p)
    return { decision: (p.decision ?? '').slice(0, 200), reason: '', ...where, invalid: invalid(p.invalid) };
  const cited = resolveCitation(p.decision, decisions);
  if (!cited.ok)
    return {
      decision: p.decision.slice(0, 200),
      reason: p.reason,
      ...where,
      invalid: invalid(
        cited.why === 'ambiguous'
          ? `names ${cited.candidates.map((d) => d.id).join(' and ')}, which share its number: name the record by its id`
          : `names no record of the rules at ${rulesAt}`,
      ),
    };
  return { decision: cited.decision.id, reason: p.reason, ...where };
}

/**
 * Every exception of the review: its commits' trailers (when the change has commits) and what the
 * client passed, at most MAX_EXCEPTIONS from each, the same exception said twice kept once.
 */
export async function changeExceptions(opts: {
  root: string;
  against: string;
  passed: ReviewRequest['exceptions'];
  decisions: ReviewScope['decisions'];
  rulesAt: string;
}): Promise<DecisionException[]> {
  const fromCommits = await trailers(opts.root, opts.against);
  const out: DecisionException[] = [];
  const seen = new Set<string>();
  const add = (list: readonly Said[], place: string) => {
    for (const [i, s] of list.entries()) {
      if (i >= MAX_EXCEPTIONS) {
        out.push({
          decision: '',
          reason: '',
          from: place,
          invalid: `is past the first ${MAX_EXCEPTIONS} taken from ${place}: it and the rest were not read`,
        });
        return;
      }
      const e = taken(s, opts.decisions, opts.rulesAt);
      const key = `${e.decision}\0${e.reason}\0${e.invalid ?? ''}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(e);
    }
  };
  add(fromCommits.said, "the change's commits");
  if (fromCommits.note) out.push({ decision: '', reason: '', from: "the change's commits", invalid: fromCommits.note });
  add(opts.passed ?? [], opts.passed?.[0]?.from ?? 'the command line');
  return out;
}
