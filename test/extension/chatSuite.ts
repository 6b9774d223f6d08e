/**
 * `@roundtable` in the extension host: its real handler (exposed on the test API) is driven with
 * a ChatResponseStream that records what the chat would show, through the one convene path, the
 * real daemon and the Meetings view, on the proposed panel of a loopback OpenAI-compatible server.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { RoundtableApi } from '../../extension/src/extension';
import { useFakePanel } from './fakePanel';
import { api, until } from './host';

/** In a topic: the workers' turns are never answered, so the cancellation lands mid-round. */
const HOLD = '(held until cancelled)';

/** What the chat view would show: Markdown in order, buttons, progress lines. */
class RecordingStream {
  readonly markdowns: string[] = [];
  readonly buttons: vscode.Command[] = [];
  readonly progress: string[] = [];
  readonly stream: vscode.ChatResponseStream = {
    markdown: (v) => void this.markdowns.push(typeof v === 'string' ? v : v.value),
    button: (c) => void this.buttons.push(c),
    progress: (v) => void this.progress.push(v),
    anchor: () => undefined,
    filetree: () => undefined,
    reference: () => undefined,
    push: () => undefined,
  };
}

function request(prompt: string, opts: { command?: string; references?: vscode.ChatPromptReference[] } = {}) {
  return {
    prompt,
    command: opts.command,
    references: opts.references ?? [],
    toolReferences: [],
  } as unknown as vscode.ChatRequest;
}

interface Asked {
  result: vscode.ChatResult;
  stream: RecordingStream;
  meetingId?: string;
}

async function ask(
  a: RoundtableApi,
  req: vscode.ChatRequest,
  token = new vscode.CancellationTokenSource().token,
): Promise<Asked> {
  assert.ok(a.chat, 'the chat handler is exposed to the extension-host tests');
  const stream = new RecordingStream();
  const result = (await a.chat.handler(req, { history: [] }, stream.stream, token)) ?? {};
  const meetingId = (result.metadata as { meetingId?: string } | undefined)?.meetingId;
  return { result, stream, ...(meetingId ? { meetingId } : {}) };
}

const meetingCount = async (a: RoundtableApi): Promise<number> =>
  (await a.link.request('meeting/list', {})).meetings.length;

/** The meeting's row in the Meetings view, once the view has listed it. */
const rowOf = (a: RoundtableApi, meetingId: string) =>
  until('the meeting in the Meetings view', () => a.meetingRows().find((r) => r.meetingId === meetingId));

/** Nobody decided for the person: no decision event, the digest waits for the review. */
function undecided(a: RoundtableApi, meetingId: string): void {
  const events = a.link.events(meetingId);
  assert.equal(a.state(meetingId).decision, undefined, 'no decision taken');
  assert.ok(!events.some((e) => e.type === 'decision_recorded'), 'no decision recorded');
}

export function defineChatSuite(): void {
  suite('@roundtable chat participant', function () {
    this.timeout(90_000);
    useFakePanel([HOLD]);

    test('answers a question with a table per round, the digest and the buttons; the meeting is in the Meetings view', async () => {
      const a = await api();
      const readme = vscode.Uri.joinPath(vscode.workspace.workspaceFolders![0]!.uri, 'README.md');
      const prompt = 'Should we split the billing service? #file:README.md';
      const start = prompt.indexOf('#file');
      const { result, stream, meetingId } = await ask(
        a,
        request(prompt, { references: [{ id: 'vscode.file', value: readme, range: [start, prompt.length] }] }),
      );
      assert.equal(result.errorDetails, undefined, result.errorDetails?.message);
      assert.ok(meetingId, 'the answer names its meeting');
      const s = a.state(meetingId);
      assert.equal(s.topic, 'Should we split the billing service?', 'the #file reference is not part of the question');
      assert.deepEqual(
        s.context?.items.map((i) => i.path),
        ['README.md'],
        'the #file reference was read through the gate',
      );
      const [table, ...rest] = stream.markdowns;
      assert.match(table ?? '', /^\*\*Round 1\*\*\n\n\| Speaker \| Model \| Stance \| Gist \|/);
      for (const w of s.participants.filter((p) => p.role === 'worker'))
        assert.match(table ?? '', new RegExp(`\\| ${w.name} \\| ${w.model} \\| AGREE \\| Stub model`), w.name);
      const answer = rest.join('\n');
      assert.match(answer, /## Roundtable: Should we split the billing service\?/);
      assert.match(answer, /The stub panel agreed/, 'the digest’s outcome');
      assert.ok(answer.includes(meetingId), 'the answer gives the meeting id');
      assert.deepEqual(
        stream.buttons.map((b) => [b.title, b.command, b.arguments]),
        [
          ['Open Room', 'roundtable.openMeeting', [meetingId]],
          ['Review and Accept…', 'roundtable.reviewDigest', [meetingId]],
          ['Another Round', 'roundtable.anotherRound', [meetingId]],
        ],
      );
      const row = await rowOf(a, meetingId);
      assert.equal(row.label, 'Should we split the billing service?');
      assert.match(row.description, /roundtable/);
      undecided(a, meetingId);
      const next = await a.chat!.followups.provideFollowups(
        result,
        { history: [] },
        new vscode.CancellationTokenSource().token,
      );
      assert.ok(
        next?.some((f) => f.prompt.includes('The stub panel agreed')),
        'follow-ups build on the outcome',
      );
    });

    test('/vote runs a consensus vote on the options given', async () => {
      const a = await api();
      const { result, meetingId } = await ask(
        a,
        request('Postgres | SQLite — which database for the billing service?', { command: 'vote' }),
      );
      assert.equal(result.errorDetails, undefined, result.errorDetails?.message);
      assert.ok(meetingId);
      const s = a.state(meetingId);
      assert.equal(s.mode, 'consensus');
      assert.deepEqual(
        s.options.map((o) => o.label),
        ['Postgres', 'SQLite'],
      );
      undecided(a, meetingId);
    });

    test('bad input gets one line and starts nothing', async () => {
      const a = await api();
      const before = await meetingCount(a);
      const outside = vscode.Uri.file('/etc/hostname');
      for (const [req, line] of [
        [request('   '), /Ask @roundtable a question/],
        [request('Postgres — which database?', { command: 'vote' }), /at least two options/],
        [request('Is this fine?', { references: [{ id: 'vscode.file', value: outside }] }), /outside the workspace/],
      ] as const) {
        const { result, stream } = await ask(a, req);
        assert.match(result.errorDetails?.message ?? '', line);
        assert.doesNotMatch(result.errorDetails?.message ?? '', /\n/, 'one line');
        assert.deepEqual(stream.markdowns, [], 'nothing streamed');
      }
      assert.equal(await meetingCount(a), before, 'no meeting was started');
    });

    test('a cancelled request cuts the meeting, and the digest still answers', async () => {
      const a = await api();
      const cancel = new vscode.CancellationTokenSource();
      // Cancelled once the meeting's first round has started: the held stub workers are mid-turn.
      const sub = a.link.onEvent((e) => {
        if (e.type === 'round_started' && a.state(e.meetingId).topic.includes(HOLD)) cancel.cancel();
      });
      try {
        const { result, stream, meetingId } = await ask(a, request(`Cut me mid-round ${HOLD}`), cancel.token);
        assert.equal(result.errorDetails, undefined, result.errorDetails?.message);
        assert.ok(meetingId);
        const s = a.state(meetingId);
        assert.equal(s.closed?.reason, 'cut');
        assert.ok(s.digest, 'the digest was written from what was said');
        assert.match(stream.markdowns.join('\n'), /cancelled by whoever convened it/);
        assert.match((await rowOf(a, meetingId)).description, /.+ · roundtable/);
        undecided(a, meetingId);
      } finally {
        sub.dispose();
      }
    });
  });
}
