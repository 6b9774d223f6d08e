/**
 * Markdown as GitHub renders a comment, and what in it would notify someone or reference an issue.
 * GitHub renders with cmark-gfm (tables, strikethrough, autolinked URLs, raw HTML kept and then
 * sanitised): markdown-it with `html` and `linkify` on is that flavour. GitHub then looks for
 * mentions and references in the HTML's text nodes, after entities and backslash escapes are
 * decoded, outside `<pre>`, `<code>`, `<a>`, `<style>` and `<script>`; the patterns below are its
 * own, from the filters GitHub published:
 *
 * - user mentions: html-pipeline's `MentionFilter` (gjtorikian/html-pipeline
 *   lib/html_pipeline/node_filter/mention_filter.rb, commit 238fc88ef1789b1ca790fa17331665a5d039502f),
 * - team mentions: its `TeamMentionFilter` (lib/html_pipeline/node_filter/team_mention_filter.rb,
 *   commit 32185aa04f4a52c246a0b8b1260ed2083bbfba52),
 * - issue references `#1`, `GH-1`, `user#1`, `owner/repo#1`: GitHub's `IssueMentionFilter` as it
 *   stood in the same repository's history (lib/github/html/issue_mention_filter.rb, commit
 *   061e8496b9b915bc5dc03e1516cfee8ca3fc0785), whose forms the docs' "Autolinked references and
 *   URLs" table still lists.
 *
 * Ruby's `\W` and `\s` are ASCII and its `^`/`$` match at line ends: spelled so here. Ruby's atomic
 * `(?>…)` (no backtracking into the name) is the longest name, `(?![a-z0-9-])`.
 */
import { JSDOM } from 'jsdom';
import MarkdownIt from 'markdown-it';

const md = new MarkdownIt({ html: true, linkify: true });

const PATTERNS: Record<'user' | 'team' | 'issue', RegExp[]> = {
  user: [/(?:^|[^A-Za-z0-9_])@([a-z0-9][a-z0-9-]*)(?![a-z0-9-])(?!\/)(?=\.+[ \t\W]|\.+$|[^0-9a-zA-Z_.]|$)/gim],
  team: [/(?<=^|[^A-Za-z0-9_])@([a-z0-9][a-z0-9-]*)\/([a-z0-9][a-z0-9_-]*)\b/gim],
  issue: [
    // replace_bare_issue_mentions: `(^|close[sd]? |fixe[sd] | |\W)(gh-|#)(\d+)\b`
    /(?:^|[^A-Za-z0-9_])(gh-|#)(\d+)\b/gim,
    // replace_repo_issue_mentions: `(^|\s|[(\[{])([\w-]+\/?[.\w-]*)#(\d+)\b`
    /(?:^|[ \t\r\n\f\v([{])([\w-]+\/?[.\w-]*)#(\d+)\b/gm,
  ],
};

/** Elements whose text GitHub does not look into. */
const IGNORED = new Set(['PRE', 'CODE', 'A', 'STYLE', 'SCRIPT']);

export interface GitHubReference {
  kind: 'user' | 'team' | 'issue';
  /** What matched, as GitHub would have linked it. */
  text: string;
}

/** The HTML GitHub's flavour of Markdown makes of `markdown` (before its own filters). */
export function githubHtml(markdown: string): string {
  return md.render(markdown);
}

/** Every mention and issue reference GitHub would make of `markdown` in a comment. */
export function githubReferences(markdown: string): GitHubReference[] {
  const { document, NodeFilter } = new JSDOM(githubHtml(markdown)).window;
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const found: GitHubReference[] = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    let ignored = false;
    for (let p = node.parentElement; p && !ignored; p = p.parentElement) ignored = IGNORED.has(p.tagName);
    if (ignored) continue;
    const text = node.textContent ?? '';
    for (const [kind, patterns] of Object.entries(PATTERNS) as [GitHubReference['kind'], RegExp[]][])
      for (const re of patterns)
        for (const m of text.matchAll(re)) found.push({ kind, text: m[0].replace(/^[^@#\w]/, '') });
  }
  return found;
}
