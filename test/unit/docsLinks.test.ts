/**
 * The README and the pages under docs/ link to each other, to images and to anchors: a reader who
 * follows any relative link lands on a file that exists and a heading that is there. Headings'
 * anchors are GitHub's (lower case, punctuation dropped, spaces as hyphens, repeats numbered).
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import MarkdownIt from 'markdown-it';

const ROOT = path.resolve(__dirname, '..', '..');
const PAGES = [
  'README.md',
  'MARKETPLACE.md',
  ...readdirSync(path.join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
const md = new MarkdownIt({ html: true });

type Token = ReturnType<MarkdownIt['parse']>[number];

function anchorsOf(tokens: Token[]): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  tokens.forEach((t, i) => {
    if (t.type !== 'heading_open') return;
    const text = (tokens[i + 1]?.children ?? [])
      .filter((c) => c.type === 'text' || c.type === 'code_inline')
      .map((c) => c.content)
      .join('');
    const slug = text
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  });
  return anchors;
}

function targetsOf(tokens: Token[]): string[] {
  const targets: string[] = [];
  for (const t of tokens)
    for (const c of t.children ?? []) {
      const target = c.type === 'link_open' ? c.attrGet('href') : c.type === 'image' ? c.attrGet('src') : null;
      if (target) targets.push(target);
    }
  return targets;
}

const parsed = new Map(PAGES.map((p) => [p, md.parse(readFileSync(path.join(ROOT, p), 'utf8'), {})]));

describe('links between the README and docs/', () => {
  it('the README points a newcomer to every page under docs/', () => {
    const fromReadme = new Set(targetsOf(parsed.get('README.md') ?? []).map((t) => t.split('#')[0]));
    const missing = PAGES.filter((p) => p.startsWith('docs/') && !fromReadme.has(p));
    assert.deepEqual(missing, [], 'pages the README does not link to');
  });

  for (const page of PAGES)
    it(`every relative link and image in ${page} resolves, anchors included`, () => {
      const broken: string[] = [];
      for (const target of targetsOf(parsed.get(page) ?? [])) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:, command: leave the repository
        const [file = '', anchor] = target.split('#');
        const resolved = file ? path.posix.join(path.posix.dirname(page), decodeURI(file)) : page;
        if (!existsSync(path.join(ROOT, resolved))) broken.push(`${target}: no file ${resolved}`);
        else if (anchor !== undefined) {
          const tokens = parsed.get(resolved);
          if (!tokens) broken.push(`${target}: ${resolved} is not one of the checked pages`);
          else if (!anchorsOf(tokens).has(anchor)) broken.push(`${target}: no heading #${anchor} in ${resolved}`);
        }
      }
      assert.deepEqual(broken, []);
    });
});
