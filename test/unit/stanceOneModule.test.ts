/**
 * The stance marker is written in one module (protocol/src/stance.ts): its wording in prompts and
 * tool texts, its parser, and the pattern that strips it. Anywhere else in the source a marker
 * literal (`[STANCE: AGREE]`) or a pattern for one (`\[\s*STANCE\s*:`) is a second copy that a
 * change of the marker would miss: this test finds them.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';

const ROOT = path.resolve(__dirname, '..', '..');
const SOURCES = ['protocol', 'client', 'daemon', 'cli', 'mcp', 'eval', 'extension', 'webview', 'action'];
const THE_MODULE = path.join('protocol', 'src', 'stance.ts');

/** `STANCE` then a colon, with blanks or a regex's `\s*` between: a marker literal or a pattern for one. */
const MARKER = /STANCE(?:\s|\\s[*+?]?)*[:：]/;

/** The code of a file: doc and line comments left out (they may show the marker to a reader). */
function codeLines(text: string): string[] {
  return text
    .replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, ''))
    .split('\n')
    .map((l) => l.replace(/(^|\s)\/\/.*$/, ''));
}

function copies(file: string, text: string): string[] {
  return codeLines(text).flatMap((l, i) => (MARKER.test(l) ? [`${file}:${i + 1}: ${l.trim()}`] : []));
}

function sourceFiles(): string[] {
  return SOURCES.flatMap((dir) =>
    readdirSync(path.join(ROOT, dir, 'src'), { recursive: true, encoding: 'utf8' })
      .filter((f) => /\.tsx?$/.test(f) && !f.endsWith('.d.ts'))
      .map((f) => path.join(dir, 'src', f)),
  );
}

describe('the stance marker has one module', () => {
  it('no source file outside protocol/src/stance.ts writes the marker or a pattern for it', () => {
    const found = sourceFiles()
      .filter((f) => f !== THE_MODULE)
      .flatMap((f) => copies(f, readFileSync(path.join(ROOT, f), 'utf8')));
    assert.deepEqual(found, []);
  });

  it('the check sees a copy when there is one (the copies this module replaced)', () => {
    const webview = 'const STANCE_MARKER = /[ \\t]*\\[\\s*STANCE\\s*:[^\\]\\n]*\\]/gi;';
    const scripted = "    .replace(/\\[STANCE:[^\\]]*\\]/gi, '')";
    const prompt = "      '[STANCE: DISAGREE] if you oppose it, or [STANCE: NEUTRAL]. Nothing to add' +";
    for (const line of [webview, scripted, prompt]) assert.equal(copies('x.ts', line).length, 1, line);
    assert.deepEqual(copies('x.ts', '/** The body without its `[STANCE: X]` marker(s). */\n// [STANCE: AGREE]'), []);
    assert.deepEqual(copies('x.ts', 'const STANCE_COLOR: Record<string, string> = {};'), []);
  });

  it('the module is where the check looks', () => {
    assert.ok(copies(THE_MODULE, readFileSync(path.join(ROOT, THE_MODULE), 'utf8')).length > 0);
  });
});
