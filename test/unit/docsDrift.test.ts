/**
 * The pages under docs/ name files and symbols; a reader who looks for one finds it where the
 * page says. The rules are kept few so a page fixes in minutes when code moves:
 *
 * 1. Only `inline code` is read (code fences and links are not). A page is cut into units: a
 *    table row, or one sentence of a paragraph or list item.
 * 2. A FILE is inline code ending in `.ts`, `.mjs` or `.md`, or a folder from a top folder of the
 *    repo ending in `/` (`client/src/`), with no space, placeholder (`<`, `*`, `…`) or hidden part
 *    (`.tmp/`). A path from a top folder (`daemon/src/meeting/engine.ts`) must exist from the repo
 *    root, on every page. A bare one (`events.ts`, `modes/types.ts`) is checked on
 *    docs/protocol.md only (the user pages name files of the user's own repo): it must exist under
 *    the folder of a path named earlier in the same section (heading to heading), or at the root.
 * 3. A SYMBOL is inline code that is a type-like name (`ParticipantSchema`), a constant with an
 *    underscore (`EVENT_BODIES`), or a call (`nextStep(state)`: the name before the bracket).
 *    Field names, values and `a.b` forms are not symbols. It is checked against the source files
 *    (`.ts`, not under test/) its unit names:
 *    - "`SYMBOL` in `FILE`" and "`SYMBOL` (`FILE`)" bind the symbol to that one file;
 *    - otherwise a symbol in a unit that names source files must be declared in one of them;
 *    - a symbol in a unit that names no source file is not checked.
 *    Declared means `export` + `const|let|function|class|interface|type|enum` of that name in the
 *    file itself (a re-export does not count: the page should name the file that declares it), or,
 *    for a call, an indented method of that name (`  async start(`) in the file.
 *
 * When code moves, the failure names the page's section and the name: fix the page, or the rule
 * here if it misread a sentence.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import MarkdownIt from 'markdown-it';

const ROOT = path.resolve(__dirname, '..', '..');
const TOP = /^(protocol|client|daemon|cli|mcp|eval|extension|webview|action|test|bench|docs|scripts|examples|media)\//;
const PAGES = readdirSync(path.join(ROOT, 'docs'))
  .filter((f) => f.endsWith('.md'))
  .map((f) => `docs/${f}`);

type Token = ReturnType<MarkdownIt['parse']>[number];
/** One piece of a unit: inline code, or the text between. */
type Piece = { code: true; text: string } | { code: false; text: string };

const isFile = (s: string): boolean =>
  !/[\s<*…]|(^|\/)\./.test(s) && (/^[\w./-]+\.(ts|mjs|md)$/.test(s) || (TOP.test(s) && s.endsWith('/')));
const isSource = (rel: string): boolean => rel.endsWith('.ts') && !rel.startsWith('test/');
/** The declared name a piece of inline code stands for, or undefined when it is not a symbol. */
export function symbolOf(s: string): string | undefined {
  const call = /^([A-Za-z_$][\w$]*)\(/.exec(s);
  if (call) return call[1];
  if (/^[A-Z][a-z]\w*$/.test(s) && /[a-z]/.test(s)) return s;
  if (/^[A-Z][A-Z0-9]*_[A-Z0-9_]+$/.test(s)) return s;
  return undefined;
}

/** A sentence ends at `. ` or `; ` (not `e.g. ` or `i.e. `), or at a `.` that ends the text. */
function splitSentences(children: Token[]): Piece[][] {
  const units: Piece[][] = [[]];
  let text = '';
  const flush = (): void => {
    text.split(/(?<!\b(?:e\.g|i\.e))(?:[.!?](?:\s+(?=[A-Z`])|\s*$)|;\s+)/).forEach((part, i) => {
      if (i > 0) units.push([]);
      units.at(-1)?.push({ code: false, text: part });
    });
    text = '';
  };
  for (const c of children) {
    if (c.type === 'code_inline') {
      flush();
      units.at(-1)?.push({ code: true, text: c.content });
    } else if (c.type === 'softbreak') text += ' ';
    else text += c.content;
  }
  flush();
  return units;
}

export interface Unit {
  section: string;
  pieces: Piece[];
}

/** A page's units, in order: table rows whole, paragraphs and list items by sentence. */
export function unitsOf(markdown: string): Unit[] {
  const tokens = new MarkdownIt().parse(markdown, {});
  const units: Unit[] = [];
  let section = '(top)';
  let row: Piece[] | undefined;
  tokens.forEach((t, i) => {
    if (t.type === 'heading_open') section = tokens[i + 1]?.content ?? section;
    else if (t.type === 'tr_open') row = [];
    else if (t.type === 'tr_close' && row) {
      units.push({ section, pieces: row });
      row = undefined;
    } else if (t.type === 'inline' && tokens[i - 1]?.type !== 'heading_open') {
      if (row) row.push(...splitSentences(t.children ?? []).flat());
      else
        for (const pieces of splitSentences(t.children ?? []))
          if (pieces.some((p) => p.code)) units.push({ section, pieces });
    }
  });
  return units;
}

const declaredCache = new Map<string, string>();
function declares(file: string, name: string, call: boolean): boolean {
  const full = path.join(ROOT, file);
  if (!existsSync(full) || statSync(full).isDirectory()) return false;
  let text = declaredCache.get(full);
  if (text === undefined) declaredCache.set(full, (text = readFileSync(full, 'utf8')));
  const escaped = name.replace(/\$/g, '\\$');
  const exported = new RegExp(
    `^export\\s+(?:declare\\s+)?(?:default\\s+)?(?:abstract\\s+)?(?:async\\s+)?(?:const|let|function\\*?|class|interface|type|enum)\\s+${escaped}\\b`,
    'm',
  );
  const method = new RegExp(
    `^\\s+(?:(?:private|public|protected|static|async|readonly)\\s+)*${escaped}\\s*(?:<[^>]*>)?\\(`,
    'm',
  );
  return exported.test(text) || (call && method.test(text));
}

/** Every place a page names a file or symbol that is not there, one line each. */
export function driftOf(markdown: string, opts: { bare: boolean }): string[] {
  const exists = (rel: string): boolean => existsSync(path.join(ROOT, rel));
  const problems: string[] = [];
  const bases = new Map<string, Set<string>>();
  /** The repo path a named file stands for, or undefined when it is nowhere the rules look. */
  const resolve = (name: string, section: string): string | undefined => {
    const clean = name.replace(/\/$/, '');
    const seen = bases.get(section) ?? new Set<string>();
    bases.set(section, seen);
    if (TOP.test(name)) {
      if (!exists(clean)) return undefined;
      seen.add(name.endsWith('/') ? clean : path.posix.dirname(clean));
      return clean;
    }
    for (const base of [...seen].reverse())
      if (exists(path.posix.join(base, clean))) return path.posix.join(base, clean);
    return exists(clean) ? clean : undefined;
  };
  for (const { section, pieces } of unitsOf(markdown)) {
    const files: string[] = [];
    const bound = new Map<number, string | undefined>();
    pieces.forEach((p, i) => {
      if (!p.code || !isFile(p.text) || (!opts.bare && !TOP.test(p.text))) return;
      const where = resolve(p.text, section);
      if (where && isSource(where) && !files.includes(where)) files.push(where);
      else if (!where) problems.push(`"${section}": \`${p.text}\` is not in the repo`);
      // "`SYMBOL` in `FILE`" / "`SYMBOL` (`FILE`)": the symbol two pieces back is this file's.
      const between = pieces[i - 1];
      const before = pieces[i - 2];
      if (before?.code && between && !between.code && /^\s*(in|\()\s*$/.test(between.text))
        bound.set(i - 2, where && isSource(where) ? where : undefined);
    });
    pieces.forEach((p, i) => {
      const name = p.code ? symbolOf(p.text) : undefined;
      if (!name) return;
      const call = p.text.startsWith(`${name}(`);
      if (bound.has(i)) {
        const file = bound.get(i);
        if (file && !declares(file, name, call)) problems.push(`"${section}": \`${name}\` is not declared in ${file}`);
      } else if (files.length > 0 && !files.some((f) => declares(f, name, call)))
        problems.push(`"${section}": \`${name}\` is declared in none of ${files.join(', ')}`);
    });
  }
  return problems;
}

describe('docs name files and symbols that exist where they say', () => {
  for (const page of PAGES)
    it(`${page}: every file and symbol it names is there`, () => {
      const markdown = readFileSync(path.join(ROOT, page), 'utf8');
      assert.deepEqual(driftOf(markdown, { bare: page === 'docs/protocol.md' }), []);
    });

  it('the rules catch a moved schema, a moved file and a wrong table row (a planted page)', () => {
    const page = [
      '## Design',
      '',
      'The shapes are in `protocol/src/events.ts` (`ParticipantSchema`), and `EVENT_BODIES` in `protocol/src/events.ts`.',
      'Run it through `nextStep(state)` in `daemon/src/meeting/planner.ts`; see `evolve.ts`.',
      'A value `FULL` or `follow` is never a symbol. The old `daemon/src/cli/runCommand.ts` is gone; so is `gone.ts`.',
      '',
      '| file | job |',
      '| --- | --- |',
      '| `commands.ts` | `decide(command, state)` and `MeetingModeRules` |',
    ].join('\n');
    assert.deepEqual(driftOf(page, { bare: true }), [
      '"Design": `ParticipantSchema` is declared in none of protocol/src/events.ts',
      '"Design": `daemon/src/cli/runCommand.ts` is not in the repo',
      '"Design": `gone.ts` is not in the repo',
      '"Design": `MeetingModeRules` is declared in none of daemon/src/meeting/commands.ts',
    ]);
    // Bare names are the user's own files on the other pages: only paths from a top folder count there.
    assert.deepEqual(driftOf(page, { bare: false }), [
      '"Design": `ParticipantSchema` is declared in none of protocol/src/events.ts',
      '"Design": `daemon/src/cli/runCommand.ts` is not in the repo',
    ]);
  });

  it('a sentence, not a paragraph, is where an unbound symbol looks for its file', () => {
    const units = unitsOf('See `protocol/src/events.ts`. Then `MeetingConfigSchema` e.g. here.\n');
    assert.deepEqual(
      units.map((u) => u.pieces.filter((p) => p.code).map((p) => p.text)),
      [['protocol/src/events.ts'], ['MeetingConfigSchema']],
    );
    assert.equal(symbolOf('FULL'), undefined);
    assert.equal(symbolOf('meeting/start'), undefined);
    assert.equal(symbolOf('convene()'), 'convene');
  });
});
