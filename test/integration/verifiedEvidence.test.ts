import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Participant } from '@roundtable/protocol';
import { checkStartParams, fold } from '@roundtable/protocol';
import { systemClock } from '../../daemon/src/meeting/clock';
import { Meeting } from '../../daemon/src/meeting/engine';
import { evidenceChecker } from '../../daemon/src/meeting/evidence';
import { citedRange } from '@roundtable/protocol/verifiedEvidence';
import { renderMinutes } from '@roundtable/protocol/minutes';
import { OpenAIProvider } from '../../daemon/src/providers/openai';
import { MemoryStore } from '../../daemon/src/store/memoryStore';
import { eventsOfType } from '../fakes/meetings';
import { instructionsOf, startFakeOpenAI, type ChatBody, type FakeOpenAI } from '../fakes/openaiServer';
import { makeWorkspace, type FakeWorkspace } from '../fakes/workspace';

const PANEL: Participant[] = [
  { name: 'sam', role: 'assistant', provider: 'openai', model: 'm' },
  { name: 'ada', role: 'worker', provider: 'openai', model: 'm' },
  { name: 'grace', role: 'worker', provider: 'openai', model: 'm' },
];

type Cite = { file: string; section: string };
const vote = (option: string, v: string, confidence: number, evidence: Cite[]) => ({
  option,
  vote: v,
  confidence,
  rationale: `${v} ${option}`,
  evidence: evidence.map((e) => ({ ...e, type: 'code' })),
  ...(confidence < 0.7 ? { uncertainty: 'not sure' } : {}),
});

/**
 * ada reads line 1 of src/util.ts with read_file, then cites it (verified), the same file's lines
 * 1-2 (more than she read) and docs/notes.md (never read). grace cites the line ada read without
 * reading it herself.
 */
function responder(body: ChatBody) {
  const system = instructionsOf(body);
  if (/closing digest/.test(system)) return { text: 'CONSENSUS_STATEMENT: ok\nCONTRIBUTORS: ada\nDISSENT: grace' };
  if (/chairs/.test(system)) return { text: 'Welcome.' };
  const read = body.messages?.some((m) => m.role === 'tool');
  if (/^You are ada/.test(system) && !read)
    return { toolCalls: [{ name: 'read_file', arguments: '{"path":"src/util.ts","startLine":1,"endLine":1}' }] };
  if (/^You are ada/.test(system))
    return {
      text: JSON.stringify({
        votes: [
          vote('O1', 'accept', 0.9, [
            { file: 'src/util.ts', section: 'lines 1-1' },
            { file: 'docs/notes.md', section: 'lines 1-2' },
          ]),
          vote('O2', 'reject', 0.8, [{ file: 'src/util.ts', section: 'lines 1-2' }]),
        ],
      }),
    };
  return {
    text: JSON.stringify({
      votes: [vote('O1', 'reject', 0.6, [{ file: 'src/util.ts', section: 'line 1' }]), vote('O2', 'accept', 0.6, [])],
    }),
  };
}

describe('consensus evidence verified by a tool call', () => {
  let fake: FakeOpenAI;
  let ws: FakeWorkspace;
  before(async () => {
    fake = await startFakeOpenAI(responder);
    ws = await makeWorkspace();
  });
  after(async () => {
    await fake.close();
    await rm(path.dirname(ws.root), { recursive: true, force: true });
  });

  it('marks as verified only the cited lines read_file returned to that worker before the ballot', async () => {
    const store = new MemoryStore();
    const params = checkStartParams({
      topic: 'Should add() keep its argument order?',
      mode: 'consensus',
      options: ['Keep it', 'Swap it'],
      participants: PANEL,
      config: { maxRounds: 1, tools: true },
      workspace: ws.root,
    });
    assert.ok(params.ok, params.ok ? '' : params.error);
    const provider = new OpenAIProvider({ baseURL: fake.baseURL, maxRetries: 0 });
    const meeting = await Meeting.open(
      { store, providerFor: () => provider, clock: systemClock, checkEvidence: evidenceChecker(ws.root) },
      'm-verified',
      params.value,
    );
    await meeting.run();
    const events = await store.load(meeting.id);

    const [call] = eventsOfType(events, 'tool_called');
    assert.equal(call?.participant, 'ada');
    assert.match(call?.result ?? '', /^src\/util\.ts lines 1-1 of 2\n1: export function add/);

    const minutes = renderMinutes(fold(events));
    const line = (who: string, v: string) =>
      minutes.split('\n').find((l) => l.startsWith(`- **${who}** (${v},`)) ?? assert.fail(`no ${who} ${v} line`);
    const adaAccept = line('ada', 'accept');
    assert.ok(adaAccept.includes('`src/util.ts` (lines 1-1) [code] ✓ verified'), adaAccept);
    assert.ok(!/`docs\/notes\.md` \(lines 1-2\) \[code\] ✓/.test(adaAccept), 'a file she never read is not verified');
    assert.ok(!line('ada', 'reject').includes('✓ verified'), 'more lines than the tool returned are not verified');
    assert.ok(
      !line('grace', 'reject').includes('✓ verified'),
      "another worker's read does not verify grace's citation",
    );
  });

  it('reads the line range a citation names the ways models write it, and nothing from a name', () => {
    const r = (section: string) => citedRange({ file: './src/a.ts', section });
    assert.deepEqual(r('lines 3-7'), { file: 'src/a.ts', from: 3, to: 7 });
    assert.deepEqual(r('L3-L7'), { file: 'src/a.ts', from: 3, to: 7 });
    assert.deepEqual(r('line 4'), { file: 'src/a.ts', from: 4, to: 4 });
    assert.deepEqual(r('Lines 3 to 9'), { file: 'src/a.ts', from: 3, to: 9 });
    assert.equal(r('function add'), undefined, 'a function name cannot be checked against a read');
    assert.equal(r('lines 9-3'), undefined, 'a backwards range names nothing');
  });
});
