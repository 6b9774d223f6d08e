import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import { RoomPrinter } from '../../cli/src/printer';
import { printFolded } from '../fakes/roomPrinter';
import { terminalSafe } from '@roundtable/protocol/terminal';
import { DEFAULT_CONFIG } from '@roundtable/protocol';

// eslint-disable-next-line no-control-regex
const ANY_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

describe('model text printed to a terminal', () => {
  const cases: [string, string, string][] = [
    ['clear screen (CSI 2J)', 'a\u001b[2Jb', 'ab'],
    ['cursor home and colour', '\u001b[H\u001b[31;1mred\u001b[0m', 'red'],
    ['window title (OSC 0, BEL)', 'x\u001b]0;pwned\u0007y', 'xy'],
    ['clipboard write (OSC 52, ST)', 'x\u001b]52;c;ZWNobyBwd25lZA==\u001b\\y', 'xy'],
    ['unterminated OSC stops at the line end', 'x\u001b]0;title\nnext', 'x\nnext'],
    ['8-bit CSI and OSC', 'a\u009b2Jb\u009d0;t\u009cc', 'abc'],
    ['DCS', 'a\u001bPq#0;2;0;0;0\u001b\\b', 'ab'],
    ['two-byte ESC (reset, charset)', 'a\u001bcb\u001b(0c', 'abc'],
    ['C0 controls but newline and tab', 'a\u0000b\u0007c\u0008d\u000be\tf\ng', 'abcde\tf\ng'],
    ['a lone carriage return (it cannot overwrite the line)', 'safe\rEVIL', 'safe\nEVIL'],
    ['CRLF kept as a line break', 'a\r\nb', 'a\nb'],
    ['bidi overrides shown as escapes', 'a\u202eb\u2066c\u200fd', 'a⟨U+202E⟩b⟨U+2066⟩c⟨U+200F⟩d'],
    ['plain text is untouched', 'Ünïcode · “quotes” — fine', 'Ünïcode · “quotes” — fine'],
  ];
  for (const [name, input, expected] of cases) {
    it(`strips ${name}`, () => {
      assert.equal(terminalSafe(input), expected);
    });
  }

  it('the room printer cleans every model field of an event before printing it', () => {
    const out = new PassThrough();
    let printed = '';
    out.on('data', (d: Buffer) => (printed += d.toString()));
    const printer = new RoomPrinter(out, false);
    const evil = 'pwn\u001b]0;title\u0007\u001b[2J\u001b]52;c;aGk=\u0007\u009b31m';
    const events = [
      { type: 'meeting_opened', topic: `t${evil}`, mode: 'consensus', config: DEFAULT_CONFIG, participants: [] },
      { type: 'options_set', options: [{ id: 'O1', label: evil }], source: 'proposed' },
      { type: 'options_proposed', worker: 'ada', options: [evil] },
      { type: 'round_started', round: 1, speakers: ['ada'], final: false },
      {
        type: 'message_posted',
        messageId: 'm',
        from: 'ada',
        role: 'worker',
        round: 1,
        kind: 'contribution',
        text: evil,
        tokens: 1,
      },
      { type: 'judge_feedback', round: 1, text: evil, corrections: [], tokens: 1 },
      { type: 'turn_failed', round: 1, participant: 'ada', reason: 'error', detail: evil },
      { type: 'meeting_closed', reason: 'converged', detail: evil },
    ];
    printFolded(printer, events);
    printer.finish({
      meetingId: 'm',
      terminatedBy: 'converged',
      consensus: 'NONE',
      rounds: 1,
      tokens: {
        spoken: 1,
        budget: 1,
        prompt: 1,
        completion: 1,
        billed: { prompt: 1, completion: 1, cached: 0, total: 2, calls: 1, perParticipant: {} },
      },
      minutesPath: 'x.md',
      digest: evil,
    });
    assert.ok(printed.includes('pwn'), 'the words themselves are printed');
    assert.doesNotMatch(printed, ANY_CONTROL);
    assert.doesNotMatch(printed, /title|aGk=/, 'escape sequence payloads are dropped with their sequence');
  });
});
