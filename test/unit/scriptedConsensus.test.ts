import { ballotReply } from '../../daemon/src/meeting/modes/consensus/replySchemas';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { ballotPrompt, proposalPrompt } from '../../daemon/src/meeting/consensusPrompts';
import { parseBallot, parseProposals } from '../../daemon/src/meeting/votes';
import { ScriptedProvider, loadScript, parseScript } from '../../daemon/src/providers/scripted';
import { given, opened } from '../fakes/given';

const demo = loadScript(path.join(__dirname, '..', '..', 'examples', 'demo-script.json'));

function voting(labels: string[]) {
  const options = labels.map((label, i) => ({ id: `O${i + 1}`, label }));
  const s = given(
    ...opened({ mode: 'consensus' }),
    { type: 'options_set', options, source: 'user' },
    {
      type: 'round_started',
      round: 1,
      speakers: ['ada', 'grace'],
      final: false,
    },
  );
  return { s, options };
}

async function ask(provider: ScriptedProvider, messages: ReturnType<typeof ballotPrompt>, round: number) {
  const r = await provider.chat({
    model: 'scripted',
    messages,
    maxTokens: 800,
    json: ballotReply(['O1', 'O2']),
    signal: new AbortController().signal,
    meta: { participant: 'ada', role: 'worker', purpose: 'turn', round, topic: 'Which database?' },
  });
  return r.text;
}

describe('scripted consensus replies', () => {
  for (const labels of [
    ['A', 'B'],
    ['Keep MySQL', 'Move to PostgreSQL', 'Both, for a quarter', 'Neither'],
  ])
    it(`vote validly on the options of the meeting (${labels.length} options)`, async () => {
      const { s, options } = voting(labels);
      const round = s.rounds[0];
      assert.ok(round);
      const text = await ask(new ScriptedProvider(demo), ballotPrompt(s, s.participants[2]!, round), 1);
      const check = parseBallot(text, options);
      assert.ok(check.ok, text);
      assert.deepEqual(
        check.votes.map((v) => v.vote),
        labels.map((_, i) => (i === 0 ? 'accept' : 'reject')),
      );
      assert.match(check.votes[0]?.rationale ?? '', new RegExp(`^${labels[0]} `), 'the rationale names the option');
    });

  it('propose the script options when asked to propose', async () => {
    const { s } = voting(['A', 'B']);
    const text = await ask(new ScriptedProvider(demo), proposalPrompt(s, s.participants[2]!), 0);
    assert.deepEqual(parseProposals(text), demo.proposals?.ada);
  });

  it('name the bad entry of a script', () => {
    assert.throws(() => parseScript({ replies: {}, ballots: { ada: [{ accept: 0 }] } }), /ballots\.ada\[0\]\.accept/);
    assert.throws(() => parseScript({ replies: {}, proposals: { ada: 'x' } }), /proposals\.ada must be a list/);
    assert.throws(() => parseScript({ replies: {}, topic: '' }), /topic must be a non-empty text/);
  });
});
