/**
 * "Review Changes" without the window: the `meeting/start` the extension sends (consensus, the
 * workspace, `review: { worktree: true }`, no context) runs a review in a real daemon on a real
 * git repository, and the closed meeting's outcome maps to the diagnostics the Problems panel
 * shows (extension/src/reviewFindings.ts): the finding on the accepted record PROVEN with its
 * record, the split one CONTESTED a step lower, the one citing a missing record left out.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { MeetingState } from '@roundtable/protocol';
import { evolve, initialState, reviewOutcome } from '@roundtable/protocol';
import { findingDiagnostics } from '../../extension/src/reviewFindings';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openaiServer';
import { suiteDaemon } from '../fakes/daemon';
import { AFTER, BEFORE, RECORD, reviewers } from '../fakes/reviewRoom';

describe('a review started as the extension starts it, shown as diagnostics', () => {
  const { host } = suiteDaemon();
  let fake: FakeOpenAI;
  let workspace: string;

  before(async () => {
    fake = await startFakeOpenAI(reviewers);
    workspace = await mkdtemp(path.join(tmpdir(), 'rt-review-vscode-'));
    await mkdir(path.join(workspace, 'docs', 'decisions'), { recursive: true });
    await mkdir(path.join(workspace, 'src'));
    await writeFile(path.join(workspace, 'docs', 'decisions', '0001-use-postgres.md'), RECORD);
    await writeFile(path.join(workspace, 'src', 'db.ts'), BEFORE);
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', ...args], { cwd: workspace });
    git('init', '-q');
    git('add', '.');
    git('commit', '-q', '-m', 'Postgres pool and the decision record');
    await writeFile(path.join(workspace, 'src', 'db.ts'), AFTER);
  });
  after(() => fake.close());

  it('PROVEN on the record, CONTESTED a step lower, the missing record left out', async () => {
    const model = (name: string, role: 'assistant' | 'worker') => ({
      name,
      role,
      provider: 'openai' as const,
      model: 'm',
    });
    const { meetingId } = await host().conn.rpc.request('meeting/start', {
      topic: 'Review of the uncommitted changes',
      mode: 'consensus',
      participants: [
        model('chair', 'assistant'),
        model('ada', 'worker'),
        model('grace', 'worker'),
        model('linus', 'worker'),
      ],
      config: { maxRounds: 2 },
      providers: { baseURL: fake.baseURL },
      workspace,
      review: { worktree: true, decisionsFolder: 'docs/decisions' },
      follow: true,
    });
    await host().until((es) => es.some((e) => e.meetingId === meetingId && e.type === 'meeting_closed'), 60_000);
    const state: MeetingState = host()
      .events.filter((e) => e.meetingId === meetingId)
      .reduce(evolve, initialState());
    const outcome = reviewOutcome(state, 'blocking');
    const shown = findingDiagnostics(outcome.findings, outcome.scope);
    assert.deepEqual(
      shown.map((d) => [d.file, d.startLine, d.endLine, d.level, d.verdict, d.code, d.record?.path]),
      [
        ['src/db.ts', 5, 6, 'error', 'PROVEN', '0001', 'docs/decisions/0001-use-postgres.md'],
        ['src/db.ts', 1, 1, 'information', 'CONTESTED', 'dependencies', undefined],
      ],
    );
    // Proposed by ada and grace, two of three: proven whatever linus would say, so linus is not asked.
    assert.match(shown[0]!.message, /\(PROVEN 2–0\)$/);
    assert.match(shown[1]!.message, /^Contested: Imports mysql2 .*⟨U\+202E⟩ so the bundle .*\(CONTESTED 1–2\)$/);
  });
});
