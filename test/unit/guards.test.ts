import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkFromWebview, checkPanel, checkParams, checkStartParams, parseEnvelope } from '@roundtable/protocol';

const p = (name: string, role: string, extra: Record<string, unknown> = {}) => ({
  name,
  role,
  provider: 'scripted',
  model: 's',
  ...extra,
});
const panel = [p('sam', 'assistant'), p('ada', 'worker'), p('grace', 'worker')];

describe('protocol validation', () => {
  it('accepts a well-formed panel and start request', () => {
    assert.ok(checkPanel(panel).ok);
    const r = checkStartParams({
      topic: '  Pick a DB  ',
      mode: 'roundtable',
      participants: panel,
      config: { maxRounds: 3 },
    });
    assert.ok(r.ok);
    assert.equal(r.ok && r.value.topic, 'Pick a DB');
  });

  it('rejects bad panels with a message that says what is wrong', () => {
    const cases: [unknown, RegExp][] = [
      [[p('sam', 'assistant'), p('ada', 'worker')], /at least 2 workers, got 1/],
      [[p('ada', 'worker'), p('grace', 'worker')], /exactly 1 assistant, got 0/],
      [[...panel, p('j1', 'judge'), p('j2', 'judge')], /at most 1 judge/],
      [[...panel, p('Ada', 'worker')], /"Ada" is used twice/],
      [[...panel, p('human', 'worker')], /reserved/],
      [[...panel, p('bad name', 'worker')], /must start with a letter/],
      [[...panel, p('x', 'boss')], /role must be/],
      [[...panel, { ...p('x', 'worker'), provider: 'ftp' }], /provider must be/],
      [[...panel, { ...p('x', 'worker'), model: '' }], /model must not be empty/],
      ['nope', /must be a list/],
    ];
    for (const [input, message] of cases) {
      const r = checkPanel(input);
      assert.ok(!r.ok, `should reject ${JSON.stringify(input)}`);
      assert.match(r.ok ? '' : r.error, message);
    }
  });

  it('rejects out-of-range and unknown config', () => {
    const bad: [unknown, RegExp][] = [
      [{ maxRounds: 0 }, /maxRounds must be between 1/],
      [{ tokenBudget: 1.5 }, /tokenBudget must be an integer/],
      [{ order: 'random' }, /order must be/],
      [{ speed: 'fast' }, /config\.speed is not a known setting/],
    ];
    for (const [config, message] of bad) {
      const r = checkStartParams({ topic: 't', mode: 'roundtable', participants: panel, config });
      assert.match(r.ok ? '' : r.error, message);
    }
    assert.match(
      ((r) => (r.ok ? '' : r.error))(checkStartParams({ topic: '', mode: 'roundtable', participants: panel })),
      /topic must not be empty/,
    );
  });

  it('parses envelopes and refuses malformed or oversized frames', () => {
    assert.ok(parseEnvelope('{"kind":"request","id":1,"method":"meeting/list","params":{}}', 1000).ok);
    const bad: [string, RegExp][] = [
      ['{', /not valid JSON/],
      ['[]', /JSON object/],
      ['{"kind":"request","id":0,"method":"x"}', /id must be between 1/],
      ['{"kind":"request","id":"1","method":"x"}', /id must be an integer/],
      ['{"kind":"shout"}', /kind must be/],
      ['{"kind":"response","id":1,"ok":false}', /error \{code, message\}/],
    ];
    for (const [raw, message] of bad) {
      const r = parseEnvelope(raw, 1000);
      assert.match(r.ok ? '' : r.error, message);
    }
    const big = parseEnvelope(`{"kind":"event","method":"x","params":"${'a'.repeat(2000)}"}`, 1000);
    assert.match(big.ok ? '' : big.error, /exceeds the limit of 1000/);
  });

  it('checks the params of every method', () => {
    assert.ok(checkParams('room/subscribe', { meetingId: 'm-1', sinceSeq: 0 }).ok);
    assert.ok(!checkParams('room/subscribe', { meetingId: 'm-1', sinceSeq: -1 }).ok);
    assert.ok(!checkParams('room/subscribe', { meetingId: '../x', sinceSeq: 0 }).ok);
    assert.deepEqual(checkParams('meeting/get', { meetingId: 'm-1', sinceSeq: 7, limit: 5000 }), {
      ok: true,
      value: { meetingId: 'm-1', sinceSeq: 7, limit: 5000 },
    });
    assert.ok(!checkParams('meeting/get', { meetingId: 'm-1', limit: 0 }).ok);
    assert.ok(!checkParams('meeting/get', { meetingId: 'm-1', limit: 5001 }).ok);
    assert.ok(!checkParams('meeting/get', { meetingId: 'm-1', sinceSeq: -1 }).ok);
    assert.ok(!checkParams('room/post', { meetingId: 'm-1', text: '' }).ok);
    assert.ok(
      !checkParams('meeting/decide', { meetingId: 'm-1', decision: 'another_round' }).ok,
      'another round needs an instruction',
    );
    assert.ok(
      checkParams('meeting/decide', { meetingId: 'm-1', decision: 'another_round', instruction: 'dig into cost' }).ok,
    );
    assert.ok(!checkParams('agent/join', { meetingId: 'm-1', name: 'x y' }).ok);
    assert.ok(!checkParams('agent/listen', { meetingId: 'm-1', waitMs: 600_000 }).ok);
    const speak = checkParams('agent/speak', { meetingId: 'm-1', text: 'hi', name: 'ada' });
    assert.deepEqual(
      speak.ok && speak.value,
      { meetingId: 'm-1', text: 'hi' },
      'extra fields such as a name are dropped',
    );
  });

  it('checks messages from the webview', () => {
    assert.deepEqual(checkFromWebview({ type: 'room/ready', sinceSeq: 4 }), {
      ok: true,
      value: { type: 'room/ready', sinceSeq: 4 },
    });
    assert.ok(!checkFromWebview({ type: 'room/post', text: '' }).ok);
    assert.ok(!checkFromWebview({ type: 'eval', code: 'x' }).ok);
    assert.ok(!checkFromWebview('room/cut').ok);
  });
});
