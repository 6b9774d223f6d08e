/**
 * One case reviewed as `roundtable review` reviews a change: the case built into a real git
 * repository (the base committed on `main`, the change committed on a branch), then `meeting/start`
 * with `review` on the process's private core, through the same meeting handle as a daemon's; the
 * meeting's log is what the eval keeps and reads.
 */
import { mkdir, mkdtemp, rm, unlink, writeFile } from 'node:fs/promises';
import { ensureDir } from '@roundtable/client/outputDir';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type {
  MeetingConfig,
  MeetingEvent,
  MeetingState,
  Participant,
  ProviderConfig,
  StartMeetingParams,
} from '@roundtable/protocol';
import { settles } from '@roundtable/protocol';
import type { LocalCore } from '../../../daemon/src/daemon/localCore';
import { git } from '../../../daemon/src/gate/git';
import type { ChatProvider } from '../../../daemon/src/providers/types';
import type { ReviewCase } from './cases';

/** The topic of every case's review: what `roundtable review` says of a branch against main. */
export const REVIEW_TOPIC = 'Review of the change since main against the accepted decision records';

export interface ReviewSetup {
  /** The panel: an assistant and the reviewers (workers). */
  participants: Participant[];
  /** The provider of a meeting, from the providers config it was started with. */
  provider: (config: ProviderConfig | undefined) => ChatProvider;
  /** Settings of each review (budget, timeouts, prices); the review's defaults otherwise. */
  config: Partial<MeetingConfig>;
  /** The meeting's topic (default REVIEW_TOPIC). */
  topic?: string;
  /** A case's providers config (the scripted reviewers' script); none for a server's models. */
  providersFor?: (c: ReviewCase) => ProviderConfig | undefined;
}

/** git with a fixed author and no signing, whatever the machine's config says. */
async function gitOk(root: string, args: string[], what: string): Promise<void> {
  const r = await git(root, args, undefined, [
    '-c',
    'user.name=Roundtable eval',
    '-c',
    'user.email=eval@roundtable.invalid',
    '-c',
    'commit.gpgsign=false',
  ]);
  if (r.code !== 0)
    throw new Error(`could not build the repository of review case ${what}: git ${args[0]} failed (exit ${r.code})`);
}

async function writeFiles(root: string, files: Record<string, string>): Promise<void> {
  for (const [rel, text] of Object.entries(files)) {
    const file = path.join(root, ...rel.split('/'));
    await ensureDir(path.dirname(file));
    await writeFile(file, text);
  }
}

export interface CaseRepo {
  root: string;
  remove(): Promise<void>;
}

/** The case as a repository: the base on `main`, the change committed on branch `change`, checked out. */
export async function buildCaseRepo(c: ReviewCase): Promise<CaseRepo> {
  const dir = await mkdtemp(path.join(tmpdir(), 'rt-eval-review-'));
  const root = path.join(dir, 'repo');
  const remove = () => rm(dir, { recursive: true, force: true });
  try {
    await mkdir(root);
    await writeFiles(root, c.base);
    await gitOk(root, ['init', '-q', '-b', 'main'], c.id);
    await gitOk(root, ['add', '-A'], c.id);
    await gitOk(root, ['commit', '-q', '--allow-empty', '-m', 'base'], c.id);
    await gitOk(root, ['checkout', '-q', '-b', 'change'], c.id);
    await writeFiles(root, c.change);
    for (const rel of c.deleted) await unlink(path.join(root, ...rel.split('/')));
    await gitOk(root, ['add', '-A'], c.id);
    await gitOk(root, ['commit', '-q', '-m', 'change'], c.id);
  } catch (e) {
    await remove();
    throw e;
  }
  return { root, remove };
}

/** The start params of a case's review in `root`: `roundtable review --base main` there. */
export function reviewParams(setup: ReviewSetup, c: ReviewCase, root: string): StartMeetingParams {
  const providers = setup.providersFor?.(c);
  return {
    topic: setup.topic ?? REVIEW_TOPIC,
    mode: 'consensus',
    participants: setup.participants,
    config: setup.config,
    workspace: root,
    review: { base: 'main' },
    ...(providers ? { providers } : {}),
  };
}

/**
 * Reviews one case; its meeting's whole log, the state it folds to (the handle's, folded one event
 * at a time as the log came, so no one folds it again) and how long it took.
 */
export async function reviewCase(
  setup: ReviewSetup,
  core: LocalCore,
  c: ReviewCase,
): Promise<{ events: MeetingEvent[]; state: MeetingState; wallMs: number }> {
  const repo = await buildCaseRepo(c);
  const started = Date.now();
  try {
    const meeting = await core.conn.meetings.open(reviewParams(setup, c, repo.root));
    try {
      await meeting.untilEvent(settles, 0);
      return { events: [...meeting.events], state: meeting.state, wallMs: Date.now() - started };
    } finally {
      await meeting.release();
    }
  } finally {
    await repo.remove();
  }
}
