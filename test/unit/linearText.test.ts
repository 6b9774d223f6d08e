/**
 * Globs and context paths from agents and users: matched without backtracking (work linear in
 * the path whatever the pattern), capped in length, and refused up front when they can never be
 * inside the workspace.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkStartParams, MAX_GLOB_LENGTH } from '@roundtable/protocol';
import { oneLine as markdownOneLine } from '@roundtable/protocol/markdown';
import { globMatcher } from '../../daemon/src/gate/glob';
import { defang, oneLine as envelopeOneLine } from '../../daemon/src/providers/envelope';
import { LINEAR_RATIO, MB, SHAPES, workRatio } from '../fakes/linear';

/** The regex the old matcher built, as the reference for what a glob means (on small inputs only). */
function oldGlobRegex(glob: string): RegExp {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i] as string;
    if (c === '*' && glob[i + 1] === '*') {
      out += glob[i + 2] === '/' ? '(?:.*/)?' : '.*';
      i += glob[i + 2] === '/' ? 2 : 1;
    } else if (c === '*') out += '[^/]*';
    else if (c === '?') out += '[^/]';
    else out += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${out}$`);
}

/** Patterns an agent could send to stall a backtracking matcher, and a path of `n` characters built to hurt each. */
const CRAFTED: [string, string, (n: number) => string][] = [
  ['eight stars against a name of one letter', '*a*a*a*a*a*a*a*a*b', (n) => 'a'.repeat(n)],
  ['globstars between folders', '**/**/**/**/**/**/x', (n) => 'a/'.repeat(n / 2)],
  ['globstars across the whole path', '**a**a**a**a**a**a**b', (n) => 'a'.repeat(n)],
  ['a run of question marks', `${'?'.repeat(200)}z`, (n) => 'q'.repeat(n)],
  ['stars and slashes', '*/*/*/*/*/*/*/*/*/b', (n) => 'a/'.repeat(n / 2)],
  ['a long literal tail after a star', `*${'ab'.repeat(100)}c`, (n) => 'ab'.repeat(n / 2)],
];

describe('glob matching cannot backtrack', () => {
  for (const [name, glob, path] of CRAFTED) {
    it(`${name}: ${glob.slice(0, 30)} — a 256 KB name costs linear work and is not matched`, () => {
      const m = globMatcher(glob);
      assert.equal(m.test(path(1_000)), false);
      const ratio = workRatio((p) => m.test(p), path, MB / 4);
      assert.ok(ratio < LINEAR_RATIO, `256 KB took ${ratio.toFixed(1)}× the work of 32 KB`);
    });
  }

  it('eight stars against a 30-letter name answer at once (the backtracking regex took minutes)', () => {
    assert.equal(globMatcher('*a*a*a*a*a*a*a*a*b').test(`${'a'.repeat(30)}c`), false);
    assert.equal(globMatcher('*a*a*a*a*a*a*a*a*b').test(`${'a'.repeat(30)}b`), true);
  });

  it(`refuses a pattern longer than ${MAX_GLOB_LENGTH} characters in one line`, () => {
    assert.throws(
      () => globMatcher(`${'*a'.repeat(200)}`),
      /^Error: the glob is 400 characters long; at most 256 are matched$/,
    );
  });

  it('means what the old matcher meant on every ordinary pattern (same answers on 4,000 pairs)', () => {
    let seed = 7;
    const rand = (k: number): number => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % k;
    };
    const pieces = ['*', '**', '**/', '?', 'a', 'b', '/', '.', 'ts', '[', '{', '+'];
    const chars = ['a', 'b', '/', '.', 't', 's', '[', '{', '+'];
    for (let n = 0; n < 4_000; n++) {
      let glob = '';
      for (let k = rand(6) + 1; k > 0; k--) glob += pieces[rand(pieces.length)];
      // Three stars in a row meant `.*[^/]*` to the old matcher: `**` here, a run of stars being one.
      if (/\*\*\*/.test(glob)) continue;
      let path = '';
      for (let k = rand(10); k > 0; k--) path += chars[rand(chars.length)];
      assert.equal(globMatcher(glob).test(path), oldGlobRegex(glob).test(path), `${glob} on ${path}`);
    }
  });

  it('matches the usual context globs', () => {
    const cases: [string, string, boolean][] = [
      ['src/**/*.ts', 'src/a/b/c.ts', true],
      ['src/**/*.ts', 'src/c.ts', true],
      ['src/*.ts', 'src/a/c.ts', false],
      ['./docs/*.md', 'docs/x.md', true],
      ['**', 'anything/at/all', true],
      ['*.md', 'README.md', true],
      ['*.md', 'docs/README.md', false],
      ['a?c', 'a/c', false],
      ['🎉/*.txt', '🎉/x.txt', true],
    ];
    for (const [glob, path, want] of cases) assert.equal(globMatcher(glob).test(path), want, `${glob} on ${path}`);
  });
});

describe('context paths that can never be inside the workspace are refused before the meeting starts', () => {
  const start = (paths: string[], extra: Record<string, unknown> = {}) =>
    checkStartParams({
      topic: 'Where do the files live?',
      mode: 'roundtable',
      participants: [
        { name: 'sam', role: 'assistant', provider: 'scripted', model: 'scripted' },
        { name: 'ada', role: 'worker', provider: 'scripted', model: 'scripted' },
        { name: 'grace', role: 'worker', provider: 'scripted', model: 'scripted' },
      ],
      context: { paths, ...extra },
    });
  const refused: [string, RegExp][] = [
    ['../*.txt', /^glob "\.\.\/\*\.txt" is outside the workspace$/],
    ['../secrets.txt', /^context path "\.\.\/secrets\.txt" is outside the workspace$/],
    ['/etc/*.conf', /^glob "\/etc\/\*\.conf" is outside the workspace$/],
    ['~/notes.txt', /^context path "~\/notes\.txt" is outside the workspace$/],
    ['~/**/*.pem', /^glob "~\/\*\*\/\*\.pem" is outside the workspace$/],
    ['C:\\Users\\*.txt', /^glob "C:\\Users\\\*\.txt" is outside the workspace$/],
    ['c:/x/*', /^glob "c:\/x\/\*" is outside the workspace$/],
    ['src/../../x.txt', /is outside the workspace$/],
    ['src\\..\\..\\*.ini', /is outside the workspace$/],
    ['./../x/*', /is outside the workspace$/],
    ['a/b/../../../c', /is outside the workspace$/],
    ['..', /is outside the workspace$/],
    [`${'x'.repeat(300)}*`, /^glob is 301 characters long; at most 256 are matched$/],
  ];
  for (const [p, why] of refused)
    it(`refuses ${p.slice(0, 40)} in one line`, () => {
      const r = start([p]);
      assert.equal(r.ok, false);
      assert.match(r.ok ? '' : r.error, why);
      assert.ok(!(r.ok ? '' : r.error).includes('\n'));
    });

  it('refuses a selection or a decisions folder that climbs out too', () => {
    const sel = start([], { selections: [{ path: '../x.ts', startLine: 1, endLine: 2 }] });
    assert.match(sel.ok ? '' : sel.error, /is outside the workspace$/);
    const dec = start([], { decisionsFolder: '../../adr' });
    assert.match(dec.ok ? '' : dec.error, /is outside the workspace$/);
  });

  it('lets through what may be inside: a path that comes back, a glob under a folder, an absolute file for the gate to judge', () => {
    for (const p of ['src/../README.md', 'src/**/*.ts', './docs/*.md', '/home/me/ws/src/app.ts', 'a..b/c', '...'])
      assert.equal(start([p]).ok, true, p);
  });
});

describe('escaping model text is linear in its length', () => {
  /** Readers and the shapes that made them quadratic or worse (found by feeding every shape to every reader). */
  // The fourth field, where given, is the large size: V8's global replace with many matches takes
  // a slower path past about 300,000 matches (a step of about 25x, linear on both sides: 87 ms at
  // 512 KB, 175 ms at 1 MB, 359 ms at 2 MB of tab-space), so those cases compare 4 MB with 512 KB.
  const cases: [string, (t: string) => unknown, (n: number) => string, number?][] = [
    ['the envelope on 1 MB of blank lines (was cubic)', defang, (n) => '\n'.repeat(n)],
    ['the envelope on 1 MB of stars (a bullet or emphasis?)', defang, (n) => '*'.repeat(n)],
    ['the envelope on blank-padded bullets', defang, (n) => '- \t'.repeat(n / 3)],
    ['the envelope one-liner on 1 MB of spaces', envelopeOneLine, (n) => ' '.repeat(n)],
    ['the digest line on 1 MB of spaces (was quadratic)', markdownOneLine, (n) => ' '.repeat(n)],
    ['the digest line on 4 MB of tab-space', markdownOneLine, SHAPES['tab-space']!, 4 * MB],
    ['the digest line on NBSP', markdownOneLine, SHAPES.nbsp!],
  ];
  for (const [name, read, shape, big = MB] of cases)
    it(name, () => {
      const ratio = workRatio(read, shape, big);
      assert.ok(ratio < LINEAR_RATIO, `${big / MB} MB took ${ratio.toFixed(1)}× the work of an eighth of it`);
    });

  it('folds whitespace as before: a run with a newline is one space, a tab is a space', () => {
    assert.equal(markdownOneLine(' a \t b \n\n  c\t\n d '), 'a   b c d');
    assert.equal(
      defang('  - **Final stance: x\n\n  position: y\n*stance:z\n* Stance: w\n#stance: v'),
      '  - **Final stance (quoted)- x\n\n  position (quoted)- y\n*stance (quoted)-z\n* Stance (quoted)- w\n#stance (quoted)- v',
    );
  });
});
