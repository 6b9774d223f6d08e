/**
 * Extension-host tests (mocha, inside a real VS Code). Run by @vscode/test-electron wherever a
 * desktop VS Code can be downloaded (`npm run test:vscode-desktop`), and inside code-server by the
 * end-to-end test here, where the extension runs them when ROUNDTABLE_EXTENSION_TESTS is set.
 */
import * as assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import Mocha from 'mocha';
import * as vscode from 'vscode';
import { defineChatSuite } from './chatSuite';
import { api, until } from './host';
import { defineLmToolSuite } from './lmToolSuite';

const scripted = (workers: string[], provider: 'scripted' | 'vscode-lm' = 'scripted') => [
  { name: 'sam', role: 'assistant' as const, provider: 'scripted' as const, model: 'scripted' },
  ...workers.map((name) => ({
    name,
    role: 'worker' as const,
    provider,
    model: provider === 'vscode-lm' ? 'copilot' : 'scripted',
  })),
];

export function defineSuites(mocha: Mocha, results?: string): void {
  mocha.suite.emit('pre-require', globalThis, 'suite', mocha);
  suite('Roundtable extension host', function () {
    this.timeout(60_000);

    test('activates and registers every command', async () => {
      await api();
      const commands = await vscode.commands.getCommands(true);
      for (const c of [
        'start',
        'cut',
        'post',
        'reviewDigest',
        'openMinutes',
        'setApiKey',
        'configureParticipants',
        'focusRoom',
        'showLog',
      ]) {
        assert.ok(commands.includes(`roundtable.${c}`), `roundtable.${c} is registered`);
      }
    });

    test('resolves the room view and follows a meeting to its digest', async () => {
      const a = await api();
      const meetingId = await a.startMeeting({
        topic: 'Extension host test',
        mode: 'roundtable',
        participants: scripted(['ada', 'grace']),
        config: { maxRounds: 2 },
        providers: { script: { replies: { ada: ['Yes. [STANCE: AGREE]'], grace: ['Yes. [STANCE: AGREE]'] } } },
      });
      await vscode.commands.executeCommand('roundtable.focusRoom');
      await until('the room view to resolve', () => a.roomResolved());
      const s = await until('the digest', () => (a.state(meetingId).digest ? a.state(meetingId) : undefined));
      assert.equal(s.closed?.reason, 'consensus_full');
    });

    test('started the daemon with VS Code’s runtime, and restarts and resubscribes after it stops', async () => {
      const a = await api();
      const first = await until('daemon.json', () => a.daemonPid());
      const meetingId = await a.startMeeting({
        topic: 'Survives a daemon restart',
        mode: 'roundtable',
        participants: scripted(['ada', 'grace']),
        config: { maxRounds: 4 },
        providers: {
          script: {
            defaultDelayMs: 300,
            replies: {
              ada: ['a [STANCE: AGREE]', 'b [STANCE: AGREE]', 'c [STANCE: AGREE]', 'd [STANCE: AGREE]'],
              grace: ['a [STANCE: DISAGREE]', 'b [STANCE: DISAGREE]', 'c [STANCE: DISAGREE]', 'd [STANCE: DISAGREE]'],
            },
          },
        },
      });
      await until('the first round', () => a.state(meetingId).rounds.length > 0);
      process.kill(first, 'SIGTERM');
      const second = await until('a new daemon', async () => {
        const pid = await a.daemonPid();
        return pid !== undefined && pid !== first ? pid : undefined;
      });
      assert.notEqual(second, first);
      const s = await until(
        'the resumed meeting to finish',
        () => (a.state(meetingId).digest ? a.state(meetingId) : undefined),
        60_000,
      );
      const seqs = a.link.events(meetingId).map((e) => e.seq);
      assert.deepEqual(
        seqs,
        seqs.map((_, i) => i + 1),
        'no gap and no duplicate across the restart',
      );
      assert.equal(s.interruptions.length, 1);
    });

    test('reports clearly when no VS Code language model can answer a vscode-lm participant', async () => {
      const a = await api();
      const models = await vscode.lm.selectChatModels();
      const meetingId = await a.startMeeting({
        topic: 'vscode.lm',
        mode: 'roundtable',
        participants: scripted(['ada', 'grace'], 'vscode-lm'),
        config: { maxRounds: 1 },
      });
      const s = await until('the meeting to end', () => (a.state(meetingId).digest ? a.state(meetingId) : undefined));
      if (models.length === 0) {
        assert.equal(s.closed?.reason, 'error');
        assert.match(s.closed?.detail ?? '', /no VS Code language model matches "copilot"/);
      } else {
        assert.ok(s.rounds[0]?.contributions.ada, 'a model answered');
      }
    });
  });
  defineLmToolSuite({ api, until, results });
  defineChatSuite();
}

/** Entry point for @vscode/test-electron. */
export function run(): Promise<void> {
  const mocha = new Mocha({ ui: 'tdd', color: false, timeout: 60_000 });
  defineSuites(mocha);
  return new Promise((resolve, reject) =>
    mocha.run((failures) => (failures ? reject(new Error(`${failures} extension-host test(s) failed`)) : resolve())),
  );
}

/** Entry point inside code-server: results go to a file the end-to-end driver reads. */
export function runTo(out: string): Promise<void> {
  const mocha = new Mocha({
    ui: 'tdd',
    color: false,
    timeout: 60_000,
    reporter: 'json',
    reporterOptions: { output: out },
  });
  defineSuites(mocha, out);
  return new Promise((resolve) =>
    mocha.run((failures) => {
      writeFileSync(`${out}.done`, String(failures));
      resolve();
    }),
  );
}
