/**
 * The language model tool `roundtable_convene`, called as agent mode calls it: `vscode.lm.invokeTool`
 * in the real extension host. The panel is the first run's automatic proposal from the models of
 * a real loopback OpenAI-compatible server (no saved panel), so nothing here is scripted inside
 * the daemon. VS Code asks for confirmation before the tool runs; the code-server driver answers
 * the dialog as a person would (test/e2e/extensionHost.test.ts).
 */
import * as assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import * as vscode from 'vscode';
import { CONVENE_TOOL_NAME } from '@roundtable/protocol/convene';
import type { RoundtableApi } from '../../extension/src/extension';
import { TOOL_RUNNING_SUFFIX, TOOL_SEEN_SUFFIX } from './handshake';
import { FAKE_PANEL_MODELS, useFakePanel } from './fakePanel';

/** A worker turn on this topic is held until the meeting is cut: the meeting is visibly running meanwhile. */
const HELD_TOPIC = 'Should the billing service be split out (held until cancelled)?';

export function defineLmToolSuite(o: {
  api: () => Promise<RoundtableApi>;
  until: <T>(what: string, fn: () => T | undefined | Promise<T | undefined>, ms?: number) => Promise<T>;
  /** Where the driver's handshake files go (unset on desktop: the suite does not wait for a driver). */
  results: string | undefined;
}): void {
  suite('Roundtable language model tool', function () {
    // The driver answers the confirmation and takes screenshots of the running meeting in four looks.
    this.timeout(400_000);
    const fake = useFakePanel([HELD_TOPIC]);
    const completions = () => fake().requests.filter((r) => r.path.endsWith('/chat/completions')).length;
    const invoke = (input: object, token?: vscode.CancellationToken) =>
      vscode.lm.invokeTool(CONVENE_TOOL_NAME, { input, toolInvocationToken: undefined }, token);
    const textOf = (r: vscode.LanguageModelToolResult) =>
      r.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');

    test('is registered for agent mode, with its input schema', () => {
      const tool = vscode.lm.tools.find((t) => t.name === CONVENE_TOOL_NAME);
      assert.ok(tool, `${CONVENE_TOOL_NAME} is in vscode.lm.tools`);
      assert.deepEqual((tool.inputSchema as { required?: string[] }).required, ['topic']);
    });

    test('bad input is one clear line and spends nothing', async () => {
      const a = await o.api();
      const before = { calls: completions(), meetings: (await a.link.request('meeting/list', {})).meetings.length };
      const cases: [object, RegExp][] = [
        [{ topic: '   ' }, /topic must not be empty/],
        [{ topic: 'Pick one', mode: 'consensus', options: ['only this'] }, /at least 2 options/],
        [{ topic: 'Read this', context: ['../outside.txt'] }, /"\.\.\/outside\.txt" is outside the workspace/],
      ];
      for (const [input, message] of cases)
        await assert.rejects(Promise.resolve(invoke(input)), (e: Error) => {
          assert.match(e.message, message);
          assert.equal(e.message.split('\n').length, 1, 'one line');
          return true;
        });
      assert.equal(completions(), before.calls, 'no model was called');
      assert.equal(
        (await a.link.request('meeting/list', {})).meetings.length,
        before.meetings,
        'no meeting was started',
      );
    });

    test('convenes the proposed panel and answers with the digest; the review stays the person’s', async () => {
      const a = await o.api();
      const result = await invoke({ topic: 'Should we split billing?', context: ['README.md'] });
      const text = textOf(result);
      const meetingId = /Meeting `([^`]+)`/.exec(text)?.[1];
      assert.ok(meetingId, `the digest names the meeting:\n${text}`);
      assert.match(text, /^## Roundtable: Should we split billing\?/);
      assert.match(text, /\*\*Verdict:\*\* Full consensus · \*\*Confidence:\*\* 1\.00/);
      for (const section of ['Outcome', 'Dissent', 'Contributions', 'Standing'])
        assert.match(text, new RegExp(`### ${section}\\n`), `${section} section`);
      assert.match(text, /The stub panel agreed/);
      assert.match(text, /\[Open the room\]\(command:roundtable\.openMeeting\?/);
      const s = a.state(meetingId);
      assert.deepEqual(
        [...new Set(s.participants.filter((p) => p.role === 'worker').map((p) => p.model))].sort(),
        FAKE_PANEL_MODELS,
        'one worker per model family, proposed without a picker',
      );
      assert.deepEqual(s.context?.items.map((i) => i.path).filter(Boolean), ['README.md']);
      assert.equal(s.decision, undefined, 'the tool did not decide');
      const row = await o.until('the Meetings view row', () =>
        a.meetingRows().find((r) => r.meetingId === meetingId && /review/.test(r.description)),
      );
      assert.equal(row.group, 'Awaiting you');
      assert.equal(row.label, 'Should we split billing?');
    });

    /** Starts a held meeting, waits for its row under Running, and returns it. */
    const runningRow = async (a: RoundtableApi, topic: string) => {
      const row = await o.until('a running row in the Meetings view', () =>
        a.meetingRows().find((r) => r.group === 'Running' && topic.startsWith(r.label.replace(/…$/, ''))),
      );
      assert.match(row.description, /^Round 1 of 3/);
      return row;
    };
    const settledCut = async (a: RoundtableApi, meetingId: string) => {
      const s = await o.until('the digest of the cut meeting', () =>
        a.state(meetingId).digest ? a.state(meetingId) : undefined,
      );
      assert.equal(s.closed?.reason, 'cut');
      assert.equal(s.digest?.digest.terminatedBy, 'cut');
      assert.equal(s.decision, undefined);
      await o.until('the row to leave Running', () =>
        a.meetingRows().find((r) => r.meetingId === meetingId && r.group !== 'Running'),
      );
    };

    test('cancelling the tool cuts its meeting, which shows running meanwhile; the digest is still written', async () => {
      const a = await o.api();
      const cts = new vscode.CancellationTokenSource();
      const pending = Promise.resolve(invoke({ topic: HELD_TOPIC }, cts.token));
      const row = await runningRow(a, HELD_TOPIC);
      if (o.results) {
        writeFileSync(`${o.results}${TOOL_RUNNING_SUFFIX}`, row.meetingId);
        await o.until(
          'the driver to look at the running meeting',
          () => existsSync(`${o.results}${TOOL_SEEN_SUFFIX}`),
          300_000,
        );
      }
      cts.cancel();
      // VS Code drops a cancelled tool's answer; the meeting is cut and its digest kept all the same.
      await assert.rejects(pending, /Canceled/);
      await settledCut(a, row.meetingId);
    });

    test('a cancelled convene answers with the digest of the cut meeting, saying it was cut', async () => {
      const a = await o.api();
      const topic = `${HELD_TOPIC} Again.`;
      const cts = new vscode.CancellationTokenSource();
      const pending = a.convene({ topic }, cts.token);
      const row = await runningRow(a, topic);
      cts.cancel();
      const out = await pending;
      assert.equal(out.meetingId, row.meetingId);
      assert.equal(out.cut, true);
      assert.match(out.digest, /\*\*Ended:\*\* Cut \(cancelled by whoever convened it\)/);
      assert.match(out.digest, new RegExp(`Meeting \`${row.meetingId}\``));
      await settledCut(a, row.meetingId);
    });
  });
}
