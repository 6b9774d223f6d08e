/**
 * A newcomer reads a file top to bottom: no source file over 400 lines and no function over 80
 * (tests aside). Measured with the TypeScript compiler's own parse, so a function is what the
 * language says it is (arrow functions and methods included).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import ts from 'typescript';
import { ROOT, sourceFiles } from '../importGraph';

const MAX_FILE_LINES = 400;
const MAX_FUNCTION_LINES = 80;

/** Every function in `text` longer than `max` lines, as `name (N lines)`. */
export function longFunctions(file: string, text: string, max: number): string[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const out: string[] = [];
  const visit = (n: ts.Node): void => {
    if (ts.isFunctionLike(n) && 'body' in n && n.body) {
      const lines =
        sf.getLineAndCharacterOfPosition(n.end).line - sf.getLineAndCharacterOfPosition(n.getStart()).line + 1;
      if (lines > max) {
        const name =
          n.name?.getText(sf) ?? (ts.isVariableDeclaration(n.parent) ? n.parent.name.getText(sf) : '<anonymous>');
        out.push(`${file}: ${name} (${lines} lines)`);
      }
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

describe('source size', () => {
  it(`no source file is over ${MAX_FILE_LINES} lines`, () => {
    const long = sourceFiles()
      .map((f) => [f, readFileSync(path.join(ROOT, f), 'utf8').split('\n').length] as const)
      .filter(([, lines]) => lines > MAX_FILE_LINES)
      .map(([f, lines]) => `${f} (${lines} lines)`);
    assert.deepEqual(long, []);
  });

  it(`no function is over ${MAX_FUNCTION_LINES} lines`, () => {
    const long = sourceFiles().flatMap((f) =>
      longFunctions(f, readFileSync(path.join(ROOT, f), 'utf8'), MAX_FUNCTION_LINES),
    );
    assert.deepEqual(long, []);
  });

  it('the measure sees a long function when there is one', () => {
    const body = Array.from({ length: 90 }, (_, i) => `  const v${i} = ${i};`).join('\n');
    assert.deepEqual(longFunctions('x.ts', `const f = () => {\n${body}\n};\n`, MAX_FUNCTION_LINES), [
      'x.ts: f (92 lines)',
    ]);
  });
});
