/** Model text made safe to print to a terminal. */
import { UNSAFE_CHARS, visibleText } from './text';

/**
 * Model text printed raw could drive the terminal: clear the screen (`ESC[2J`), set the window
 * title (OSC 0), write the clipboard (OSC 52), move the cursor to overwrite what was printed.
 * Every model string goes through this before it is printed: escape sequences (CSI, OSC, DCS and
 * the other string types, two-byte ESC sequences, their 8-bit C1 forms) are removed whole, then
 * every other control character but newline and tab. Bidi controls, which make text read
 * differently from what it is, are shown as escapes (`⟨U+202E⟩`) by `visibleText`, as in the room.
 */
/* eslint-disable no-control-regex -- matching control characters is what these are for */
const CSI = /(?:\u001b\[|\u009b)[0-?]*[ -/]*[@-~]?/g;
/** OSC, DCS, SOS, PM, APC: up to their terminator (BEL or ST), or the end of the line. */
const STRING_SEQ =
  /(?:\u001b[\]PX^_]|[\u009d\u0090\u0098\u009e\u009f])[^\u0007\u001b\u009c\n]*(?:\u0007|\u001b\\|\u009c)?/g;
const OTHER_ESC = /\u001b[ -/]*[0-~]?/g;
const CONTROLS = new RegExp(`[${UNSAFE_CHARS}]`, 'g');
/* eslint-enable no-control-regex */

export function terminalSafe(text: string): string {
  return visibleText(text)
    .replace(/\r\n?/g, '\n')
    .replace(CSI, '')
    .replace(STRING_SEQ, '')
    .replace(OTHER_ESC, '')
    .replace(CONTROLS, '');
}

/**
 * `terminalSafe` text kept to one line: a line break in what someone typed or named (a ref, a path)
 * is shown as `\n` (U+2028 and U+2029 as `\u2028`, `\u2029`), never made, so an error stays the
 * one line a person or a CI log reads.
 */
export function terminalLine(text: string): string {
  return terminalSafe(text)
    .replace(/\n/g, '\\n')
    .replace(/[\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16)}`);
}
