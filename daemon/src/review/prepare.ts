/**
 * A review's start (`meeting/start` with `review`): the daemon, never the client, reads the change
 * through the workspace gate, picks the decision records, sets `config.review` (the scope the
 * engine checks findings against) and builds the context every reviewer sees: the records that
 * apply, then the diff file by file while the context budget lasts (governed files first). What did
 * not fit or the gate kept back is the scope's `unread`, said in the report; one an accepted
 * decision governs keeps a review that found nothing from passing (`unreadGoverned`).
 */
import type {
  ContextAttached,
  ContextItem,
  ReviewRules,
  ReviewScope,
  StartMeetingParams,
  Unstatused,
} from '@roundtable/protocol';
import { DEFAULT_CONTEXT_MAX_TOKENS, DEFAULT_UNSTATUSED, RpcError, shownPath } from '@roundtable/protocol';
import { countTokens, truncateToTokens } from '../providers/tokens';
import { RECORD_MAX_TOKENS } from '../decisions/index';
import { loadDecisions } from '../decisions/rulebook';
import type { DecisionRecord } from '../decisions/record';
import { DEFAULT_DECISIONS_FOLDER } from '../context/cliFlags';
import { contextRoot } from '../context/attach';
import { workspaceGate } from '../gate';
import type { Refusal } from '../gate';
import { clipLine } from '../meeting/digest';
import { ChangeError, collectChange, type Change, type ChangedFile } from './change';
import { changeExceptions } from './exceptions';
import { inRecordsFolder, recordEdits } from './recordEdits';
import { MAX_RANKED_RULES, chooseRules, governingByFile, noRuleLine } from './rules';

/** Files of the decisions folder listed as not records in a review's scope at most (the rest are in `roundtable decisions --json`). */
const MAX_SKIPPED_LISTED = 100;

/** The end of the one line a review of an empty change answers (the CLI exits 0 on it: nothing to fail). */
export const NOTHING_TO_REVIEW = 'is empty: nothing to review';

/** A prepared review: the params to open the meeting with (config.review set) and its context. */
export interface PreparedReview {
  params: StartMeetingParams;
  context: ContextAttached;
}

/** The one-line refusals of a review's start params; undefined when they may start a review. */
export function reviewParamsRefusal(params: StartMeetingParams): string | undefined {
  // Never trusted from a client: the scope decides which findings are refuted before any vote.
  if (params.config?.review) return 'config.review is set by the daemon from the change: leave it out';
  if (!params.review) return undefined;
  if (params.mode !== 'consensus') return 'a review runs as a consensus meeting: give mode "consensus"';
  if (!contextRoot(params)) return 'a review needs the workspace folder the change is in: give workspace';
  if (params.options?.length) return "a review's options are the reviewers' findings: give no options";
  if (params.context)
    return 'a review attaches its own context (the change and the decision records): leave context out';
  return undefined;
}

function recordItem(r: DecisionRecord, id: string): Omit<ContextItem, 'tokens' | 'truncated'> {
  return {
    kind: 'decision',
    path: r.path,
    sha256: r.sha256 ?? '',
    text: truncateToTokens(r.text, RECORD_MAX_TOKENS),
    title: `${id}: ${r.title}`,
    status: r.state,
    ...(r.redacted?.length ? { redacted: r.redacted } : {}),
    ...(r.date ? { date: r.date } : {}),
  };
}

type Unread = NonNullable<ReviewScope['unread']>[number];

/** Fewer tokens than any file's diff takes (its header alone is more): a budget this low is spent. */
const SPENT = 20;

/** A changed file not read, with the name reviewers would have been shown and the decisions that govern it. */
function unreadEntry(file: string, reason: string, governedBy: string[]): Unread {
  const shown = shownPath(file);
  return { file, ...(shown ? { shown } : {}), reason, ...(governedBy.length ? { governedBy } : {}) };
}

/**
 * The records first (the rulebook must be seen whole to be applied), then each file's diff whole
 * while the budget lasts, files an accepted decision governs (`governs`: their ids) before the
 * others, so thirty changed docs cannot push the governed source file out. A file that does not
 * fit is not cut but left unread, with the reason; the diffs are shown in the change's order.
 */
function fitReview(
  records: Omit<ContextItem, 'tokens' | 'truncated'>[],
  change: Change,
  budget: number,
  governs: (file: string) => string[],
): { items: ContextItem[]; unread: Unread[] } {
  const items: ContextItem[] = [];
  const unread = change.refused.map((r) => unreadEntry(r.path, r.reason, governs(r.path)));
  let left = budget;
  for (const r of records) {
    const tokens = countTokens(r.text);
    if (tokens > left) continue;
    items.push({ ...r, tokens, truncated: false });
    left -= tokens;
  }
  const governed = new Map(change.files.map((f) => [f, governs(f.file)]));
  const byPriority = [
    ...change.files.filter((f) => governed.get(f)?.length),
    ...change.files.filter((f) => !governed.get(f)?.length),
  ];
  const fits = new Map<ChangedFile, number>();
  for (const f of byPriority) {
    const why = left < SPENT ? `the ${budget}-token review budget was spent before it` : undefined;
    const tokens = why ? 0 : countTokens(f.diff.text);
    if (why || tokens > left) {
      const reason = why ?? `its diff (${tokens} tokens) did not fit the ${budget}-token review budget`;
      unread.push(unreadEntry(f.file, reason, governed.get(f) ?? []));
      continue;
    }
    fits.set(f, tokens);
    left -= tokens;
  }
  for (const f of change.files) {
    const tokens = fits.get(f);
    if (tokens === undefined) continue;
    const redacted = f.diff.redacted;
    items.push({
      kind: 'diff',
      path: `git diff ${change.against.slice(0, 12)} -- ${shownPath(f.file) ?? f.file}`,
      sha256: f.diff.sha256,
      text: f.diff.text,
      tokens,
      truncated: false,
      ...(redacted.length ? { redacted } : {}),
    });
  }
  return { items, unread };
}

/**
 * Reads the change and the rulebook for `params.review` and returns the params to open the meeting
 * with. Throws a `ChangeError` (one line) when the review cannot start.
 */
export async function prepareReview(params: StartMeetingParams): Promise<PreparedReview> {
  const refusal = reviewParamsRefusal(params);
  if (refusal) throw new ChangeError(refusal);
  const req = params.review ?? {};
  const gate = workspaceGate(contextRoot(params) as string);
  const change = await collectChange(gate, req);
  if (change.files.length === 0 && change.refused.length === 0)
    throw new ChangeError(`review: ${change.label} ${NOTHING_TO_REVIEW}`);
  const folder = req.decisionsFolder ?? DEFAULT_DECISIONS_FOLDER;
  const root = await gate.realRoot();
  // The rules are the base's, never the change's: the merge base, or HEAD for the work tree (as
  // resolved when the change was read: against() refuses a workspace whose HEAD is no commit).
  const commit = change.against === 'HEAD' ? change.head : change.against;
  const unstatused = req.unstatused ?? DEFAULT_UNSTATUSED;
  const book = await loadDecisions({ gate, folder, at: commit, unstatused });
  const records = book.ok ? book.records : [];
  const rulebookNote = noRuleLine(records, folder, unstatused);
  const diffText = change.files.map((f) => f.diff.text).join('');
  const changedFiles = change.files.map((f) => f.file);
  // Which accepted records govern each file read or refused: matched once, for the rules and the budget.
  const governing = governingByFile(records, [...changedFiles, ...change.refused.map((r) => r.path)]);
  const { rules, decisions, ids } = chooseRules(records, changedFiles, diffText, MAX_RANKED_RULES, governing);
  const budget = params.config?.contextMaxTokens ?? DEFAULT_CONTEXT_MAX_TOKENS;
  // The change's own record files are reported as its edits (recordEdits.ts), not judged here:
  // the budget reads the code first, so 500 records added before it cannot push it out.
  const isRecord = inRecordsFolder(folder);
  const codeFirst = [...change.files.filter((f) => !isRecord(f.file)), ...change.files.filter((f) => isRecord(f.file))];
  const fitted = fitReview(
    rules.map((r) => recordItem(r, ids.get(r) ?? r.path)),
    { ...change, files: codeFirst },
    budget,
    (file) => (governing.get(file) ?? []).map((g) => ids.get(g.record) ?? g.record.path),
  );
  const unreadFiles = new Set(fitted.unread.map((u) => u.file));
  const rulesRead = await rulesOf({ gate, change, folder, unstatused, commit, book, records });
  const exceptions = await changeExceptions({
    root,
    against: change.against,
    passed: req.exceptions,
    decisions,
    rulesAt: rulesRead.label,
  });
  const review: ReviewScope = {
    changed: change.files
      .filter((f) => !unreadFiles.has(f.file))
      .map((f) => {
        const shown = shownPath(f.file);
        return { file: f.file, ...(shown ? { shown } : {}), ranges: f.ranges };
      }),
    decisions,
    ...(fitted.unread.length ? { unread: fitted.unread } : {}),
    ...(book.ok && book.skipped.length
      ? {
          skipped: book.skipped
            .slice(0, MAX_SKIPPED_LISTED)
            .map((k) => ({ path: k.path.slice(0, 1_000), reason: k.reason })),
        }
      : {}),
    ...(rulebookNote ? { rulebookNote } : {}),
    ...(req.allowUnread ? { unreadAllowed: true } : {}),
    rules: rulesRead,
    ...(exceptions.length ? { exceptions } : {}),
  };
  const refused = [...(book.ok ? book.refused : book.missing ? [] : [{ path: folder, reason: book.reason }])];
  const left = rules.length - fitted.items.filter((i) => i.kind === 'decision').length;
  const cut = [
    left > 0 ? `${left} decision record(s) did not fit the ${budget}-token review budget.` : '',
    fitted.unread.length ? `${fitted.unread.length} changed file(s) were not read (see the review's unread list).` : '',
  ]
    .filter(Boolean)
    .join(' ');
  return {
    params: { ...params, config: { ...params.config, review } },
    context: { items: fitted.items, refused, budget, ...(cut ? { cut } : {}) },
  };
}

/** Most files listed in each of the scope's `rules.refused` and `rules.unread` (the rest are counted in a last line). */
const MAX_LISTED_PATHS = 20;

function listed(list: readonly Refusal[], folder: string): Refusal[] | undefined {
  if (list.length === 0) return undefined;
  const fit = (r: Refusal): Refusal => ({ path: r.path.slice(0, 1_000), reason: clipLine(r.reason, 300) });
  if (list.length <= MAX_LISTED_PATHS) return list.map(fit);
  const more = list.length - MAX_LISTED_PATHS + 1;
  return [...list.slice(0, MAX_LISTED_PATHS - 1), { path: folder, reason: `and ${more} more files were not read` }].map(
    fit,
  );
}

/** Where the rules were read, what of them was not read, and the change's own edits to them. */
async function rulesOf(o: {
  gate: ReturnType<typeof workspaceGate>;
  change: Change;
  folder: string;
  unstatused: Unstatused;
  commit: string;
  book: Awaited<ReturnType<typeof loadDecisions>>;
  records: DecisionRecord[];
}): Promise<ReviewRules> {
  const short = o.commit.slice(0, 7);
  const base = o.change.base && /^[0-9a-f]{40,64}$/.test(o.change.base) ? o.change.base.slice(0, 7) : o.change.base;
  const label = clipLine(base ? `${base} (merge base ${short})` : `HEAD (${short})`, 300);
  const edits = await recordEdits({
    gate: o.gate,
    change: o.change,
    folder: o.folder,
    unstatused: o.unstatused,
    base: o.records,
  });
  // A folder the base does not have is an empty rulebook; one git could not read is not read.
  const unread = o.book.ok ? o.book.unread : o.book.missing ? [] : [{ path: o.folder, reason: o.book.reason }];
  const refused = listed(o.book.ok ? o.book.refused : [], o.folder);
  const notRead = listed(unread, o.folder);
  return {
    commit: o.commit,
    label,
    folder: o.folder,
    ...edits,
    ...(refused ? { refused } : {}),
    ...(notRead ? { unread: notRead } : {}),
  };
}

/**
 * The daemon's hook in `meeting/start`: a client-sent `config.review` is refused for any meeting;
 * a start with `review` is prepared here (one-line `bad_request` when it cannot be).
 */
export async function reviewOf(params: StartMeetingParams): Promise<PreparedReview | undefined> {
  if (!params.review && !params.config?.review) return undefined;
  try {
    return await prepareReview(params);
  } catch (e) {
    if (e instanceof ChangeError) throw new RpcError('bad_request', e.message);
    throw e;
  }
}
