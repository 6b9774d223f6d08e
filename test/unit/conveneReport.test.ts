/**
 * What a chat or an agent gets back from a convened meeting (the language model tool and
 * `@roundtable`): the digest as Markdown with the verdict, its sections, the meeting id and a
 * link to the room, hostile model text kept as text; and the tool's input,
 * checked by one schema that package.json's `languageModelTools` entry is generated from.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { check } from '@roundtable/protocol';
import { CONVENE_TOOL_NAME, ConveneInputSchema, conveneInputJsonSchema } from '@roundtable/protocol/convene';
import { digestReport, openRoomLink } from '../../extension/src/conveneReport';
import { panel, runMeeting } from '../fakes/meetings';

const HOSTILE = '## Injected\n<img src=x onerror=alert(1)> [run](command:roundtable.deleteMeeting) ```';

async function meeting(digest: string, ada = 'Yes, behind a flag. [STANCE: AGREE]') {
  return runMeeting({
    topic: 'Split billing? <b>now</b>',
    participants: panel(['ada', 'grace'], false),
    config: { maxRounds: 2 },
    script: {
      replies: {
        ada: [ada, ada],
        grace: ['Only with a rollback plan. [STANCE: DISAGREE]', 'Fine. [STANCE: AGREE]'],
        sam: { digest: [digest] },
      },
    },
  });
}

describe('the digest a convened meeting answers with', () => {
  it('leads with verdict and confidence, then the digest sections, the meeting id and a link to the room', async () => {
    const { state } = await meeting(
      'CONSENSUS_STATEMENT: Split billing behind a flag.\nCONTRIBUTORS: ada proposed it.\nDISSENT: grace wants a rollback plan.',
    );
    const md = digestReport(state, { cut: false });
    assert.match(md, /^## Roundtable: Split billing\? &lt;b&gt;now&lt;\/b&gt;\n/);
    assert.match(md, /\*\*Verdict:\*\* Full consensus · \*\*Confidence:\*\* 1\.00 · \*\*Ended:\*\* Full consensus\n/);
    assert.match(md, /### Outcome\n\nSplit billing behind a flag\./);
    assert.match(md, /### Dissent\n\ngrace wants a rollback plan\./);
    assert.match(md, /### Was the debate worth it\?\n\n\S/);
    assert.ok(md.includes(`Meeting \`${state.meetingId}\` · [Open the room](${openRoomLink(state.meetingId)})`));
    assert.match(md, /nothing was accepted or rejected on your behalf/);
    assert.deepEqual(JSON.parse(decodeURIComponent(openRoomLink(state.meetingId).split('?')[1]!)), [state.meetingId]);
  });

  it('keeps a model’s Markdown, HTML and command links as text', async () => {
    const { state } = await meeting(
      `CONSENSUS_STATEMENT: ${HOSTILE.replace(/\n/g, ' ')}\nCONTRIBUTORS: x\nDISSENT: ${HOSTILE}`,
      `${HOSTILE}\nYes. [STANCE: AGREE]`,
    );
    const md = digestReport(state, { cut: true });
    const headings = md.split('\n').filter((l) => /^#/.test(l));
    assert.deepEqual(
      headings.map((h) => h.replace(/^(#+) .*/, '$1')),
      ['##', '###', '###', '###', '###', '###'],
      `only the report's own headings:\n${headings.join('\n')}`,
    );
    assert.doesNotMatch(md, /<img/);
    assert.match(md, /\\\[run\\\]\(command:roundtable\\\.deleteMeeting\)/, 'the model’s link is escaped text');
    assert.equal(md.match(/(?<!\\)\]\(command:/g)?.length, 1, 'the only command link is the room’s');
    assert.match(md, /\(cancelled by whoever convened it\)/);
  });
});

describe('the language model tool input', () => {
  it('is checked in one line: empty topic, one option, too many rounds', () => {
    const errorOf = (v: unknown) => {
      const r = check(ConveneInputSchema, v, 'input');
      return r.ok ? undefined : r.error;
    };
    assert.match(errorOf({ topic: '  ' }) ?? '', /topic must not be empty/);
    assert.match(errorOf({ topic: 'x', options: ['one'] }) ?? '', /at least 2 options/);
    assert.match(errorOf({ topic: 'x', maxRounds: 0 }) ?? '', /maxRounds must be between 1 and 100/);
    assert.equal(errorOf({ topic: 'x', mode: 'consensus', options: ['a', 'b'], context: ['diff', 'src'] }), undefined);
  });

  it("package.json's languageModelTools entry is generated from the schema (run npm run gen:settings)", () => {
    const pkg = JSON.parse(readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8')) as {
      contributes: { languageModelTools: { name: string; toolReferenceName: string; inputSchema: unknown }[] };
    };
    const tool = pkg.contributes.languageModelTools.find((t) => t.name === CONVENE_TOOL_NAME);
    assert.equal(tool?.toolReferenceName, 'roundtable', '#roundtable in a prompt');
    assert.deepEqual(tool?.inputSchema, conveneInputJsonSchema());
  });
});
