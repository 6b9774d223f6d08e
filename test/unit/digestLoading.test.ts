/**
 * The review panel after a review (the real `webview/src/digest.ts` in jsdom, fed as the extension
 * feeds it): it says "Loading the meeting…" until the meeting's log comes and asks for it again
 * until it does, it never shows an empty meeting in its place (the links the extension sends first,
 * an empty log), a log it refuses is said in the panel and the extension's log instead of leaving
 * it on "Loading" for ever, and a closed review shows its findings with their verdicts whether or
 * not a digest is written. The log is a real review run by the engine against reviewers on a
 * loopback OpenAI-compatible server (test/fakes/reviewRoom.ts, as the e2e test runs it).
 */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { MeetingEvent, ReviewScope } from '@roundtable/protocol';
import { decisionRefusal, fold, listedSummary, needOf } from '@roundtable/protocol';
import { contextOf, groupOf, outcomeOf } from '../../extension/src/meetingStatus';
import { evidenceChecker } from '../../daemon/src/meeting/evidence';
import { OpenAIProvider } from '../../daemon/src/providers/openai';
import { loadDigest } from '../fakes/digestView';
import { panel, runMeeting } from '../fakes/meetings';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openaiServer';
import { AFTER, PROVEN_CLAIM, RECORD, reviewers } from '../fakes/reviewRoom';

const text = (n: Element | null | undefined): string => n?.textContent?.replace(/\s+/g, ' ').trim() ?? '';
const asked = (posted: { type: string }[]) => posted.filter((m) => m.type === 'digest/ready').length;

let log: MeetingEvent[];
let fake: FakeOpenAI;
let workspace: string;

before(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), 'rt-digest-'));
  await mkdir(path.join(workspace, 'docs', 'decisions'), { recursive: true });
  await mkdir(path.join(workspace, 'src'), { recursive: true });
  await writeFile(path.join(workspace, 'docs', 'decisions', '0001-use-postgres.md'), RECORD);
  await writeFile(path.join(workspace, 'src', 'db.ts'), AFTER);
  fake = await startFakeOpenAI(reviewers);
  const scope: ReviewScope = {
    changed: [{ file: 'src/db.ts', ranges: [{ start: 2, end: 7 }] }],
    decisions: [
      {
        id: '0001',
        title: 'Use Postgres for every service',
        path: 'docs/decisions/0001-use-postgres.md',
        status: 'accepted',
      },
    ],
  };
  ({ events: log } = await runMeeting({
    mode: 'consensus',
    topic: 'Review of the uncommitted changes',
    participants: panel(['ada', 'grace', 'linus'], false).map((p) => ({
      ...p,
      provider: 'openai' as const,
      model: 'm',
    })),
    config: { review: scope },
    script: { replies: {} },
    provider: new OpenAIProvider({ baseURL: fake.baseURL }),
    deps: { checkEvidence: evidenceChecker(workspace) },
  }));
});
after(async () => {
  await fake?.close();
  await rm(workspace, { recursive: true, force: true });
});

describe('the review panel after a review', () => {
  it('stays on "Loading the meeting…" until the log comes, asking again, and never shows an empty meeting', () => {
    const view = loadDigest();
    assert.equal(text(view.root), 'Loading the meeting…');
    assert.equal(asked(view.posted), 1, 'asks for the log as it starts');
    // What the extension sends before the log: who decides (the links), and a log not arrived yet.
    view.send({ type: 'digest/files', decidedBy: 'Test Person' });
    view.send({ type: 'digest/show', events: [] });
    assert.equal(text(view.root), 'Loading the meeting…');
    view.tick();
    assert.equal(asked(view.posted), 2, 'asks again a second later');
    view.send({ type: 'digest/show', events: log });
    assert.equal(text(view.root.querySelector('h2')), 'Review: Review of the uncommitted changes');
    view.tick();
    assert.equal(asked(view.posted), 2, 'stops asking once the log is there');
  });

  it('shows the findings with their verdicts, and why one was refuted before the vote', () => {
    const view = loadDigest();
    view.send({ type: 'digest/show', events: log });
    const verdicts = [...view.root.querySelectorAll('[data-testid="verdicts"] li')].map(text);
    assert.ok(
      verdicts.some(
        (v) =>
          v.includes(PROVEN_CLAIM) && v.startsWith('O1: PROVEN (weighted acceptance 100%) — [blocking] src/db.ts:6-7'),
      ),
      verdicts.join(' | '),
    );
    assert.ok(
      verdicts.some((v) =>
        // ada's own finding is its accept at 0.8 (weight 0.5) against two rejects at 0.6 (0.3 each).
        /^O2: CONTESTED \(weighted acceptance 46%\) — \[major\] src\/db.ts:2 — dependencies: /.test(v),
      ),
      verdicts.join(' | '),
    );
    assert.ok(
      verdicts.some((v) =>
        /^O3: REFUTED before the vote \(cites 0099, which is not in the rulebook\) — .*breaks 0099/.test(v),
      ),
      verdicts.join(' | '),
    );
  });

  it('a closed review shows its findings at once: it waits for no digest', () => {
    const closed = log.findIndex((e) => e.type === 'meeting_closed');
    const view = loadDigest();
    view.send({ type: 'digest/show', events: log.slice(0, closed + 1) });
    assert.doesNotMatch(text(view.root), /Writing the digest/);
    assert.match(text(view.root.querySelector('[data-testid="verdicts"]')), /PROVEN/);
  });

  it('reads a finished review as finished: what it came to, and no Accept, Reject, Another Round, Edit or record scope', () => {
    const view = loadDigest();
    view.send({ type: 'digest/show', events: log });
    assert.match(
      text(view.root.querySelector('[data-testid="outcome"]')),
      /^Review finished: 3 findings: 1 PROVEN \(O1\), 1 CONTESTED \(O2\), 1 REFUTED \(O3; 1 before the vote\)\. A review is no decision to accept: its upheld findings are in the Problems panel\.$/,
    );
    for (const id of ['accept', 'reject', 'another', 'edit-toggle', 'scope', 'instruction', 'retry'])
      assert.equal(view.root.querySelector(`#${id}`), null, `no #${id}`);
    assert.equal(view.root.querySelector('[data-testid="no-decision"]'), null, 'no "no decision" banner');
    assert.ok(view.root.querySelector('[data-testid="verdicts"]'), 'its verdicts');
    assert.ok(!/Agreement \d+%/.test(text(view.root)), 'no agreement on one option to measure');
    // Nothing that reads as a decision between options: no consensus level, no "did the debate
    // change the outcome", no conflict waiting for the human (a review waits for no one).
    for (const decisionShaped of [
      /Was the debate worth it/,
      /No consensus|Full consensus|Majority ·/,
      /needs the human/,
    ])
      assert.ok(!decisionShaped.test(text(view.root)), `says nothing like ${decisionShaped}`);
  });

  it('lists a finished review as finished in the Meetings view, and refuses a decision on it', () => {
    const s = fold(log);
    assert.equal(needOf(s), undefined, 'it waits for no one');
    for (const d of ['accepted', 'rejected', 'another_round'] as const)
      assert.match(decisionRefusal(s, d) ?? '', /^A review is not a decision to accept or reject/, d);
    const m = listedSummary(s);
    assert.equal(groupOf(m), 'closed', 'not under Awaiting you');
    assert.equal(contextOf(m), 'meeting.closed');
    assert.equal(outcomeOf(m), 'Review · 1 proven, 1 contested');
  });

  it('says so when it refuses the log, in the panel and to the extension, instead of loading for ever', () => {
    const view = loadDigest();
    const broken = log.map((e, i) => (i === 3 ? { ...e, seq: 'three' } : e));
    view.send({ type: 'digest/show', events: broken });
    assert.match(
      text(view.root),
      /^The review could not show this meeting: its digest\/show was refused \(.+\)\. Close it/,
    );
    const problem = view.posted.find((m) => m.type === 'digest/problem');
    assert.match(String(problem?.message), /digest\/show was refused/);
    view.tick();
    assert.equal(asked(view.posted), 1, 'the same log would be refused again: not asked for');
  });
});
