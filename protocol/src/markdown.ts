/**
 * The escaping Markdown builder: the one place where text that came from a model, an attached
 * agent or a person is turned into Markdown for a document (minutes, consensus report, MADR
 * record). Whatever that text holds — HTML such as `</blockquote>` or `<img onerror>`, headings,
 * list markers, table pipes, fences, newlines in a one-line field, control characters — it can add
 * or close no heading, section, table row, fence, list item or HTML element, and on GitHub it
 * mentions no one and references no issue (`unreferenced`). The document's own
 * structure is written by the renderers around these calls; only these calls touch event text.
 */
import { UNSAFE_CHARS, visibleText } from './text';

/** C0/C1 control characters except tab and newline. */
const CONTROL = new RegExp(`[${UNSAFE_CHARS}]`, 'g');

/** Bidi controls shown as escapes and zero-width characters in names and markers dropped (`visibleText`), controls dropped. */
function clean(text: string): string {
  return visibleText(text).replace(/\r\n?/g, '\n').replace(CONTROL, '');
}

/** HTML-escapes `&`, `<`, `>` so no element, comment or entity reaches the document. */
function html(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * Inline Markdown that could change what a span means: emphasis, code spans, links, table pipes,
 * strikethrough, backslash itself. Escaped everywhere so a field renders as the text it is.
 */
function inlineMarks(text: string): string {
  return text.replace(/[\\`*_[\]|~]/g, (c) => `\\${c}`);
}

/**
 * What autolinkers would turn into a live link, broken by a backslash escape that renders as
 * nothing: `https://` (any scheme), `www.`, a dot before a letter (`evil.com`, `file.ts`: the
 * fuzzy domains of markdown-it's linkify) and the `@` of an address. The escapes split the text
 * where markdown-it (linkify-it), GitHub's cmark-gfm and marked look for a link, so model text
 * shows a URL as text and no renderer makes it a link. VS Code's Markdown preview runs
 * markdown-it with linkify on, which links `README.md` or `main.py` as domains
 * (microsoft/vscode#121309, #81891). Then GitHub's own autolinks, mentions and issue references
 * (`unreferenced`). Runs after `inlineMarks` (whose `\` it must not double).
 */
function unlinked(text: string): string {
  return unreferenced(
    text
      .replace(/:(?=\/\/)/g, '\\:')
      .replace(/(?<=\bwww)\.|(?<=[\p{L}\p{N}_-])\.(?=\p{L})/giu, '\\.')
      .replace(/(?<=[\p{L}\p{N}._%+-])@(?=[\p{L}\p{N}])/gu, '\\@'),
  );
}

/** A zero-width space as an entity: it survives `visibleText` (which drops the character beside ASCII) and shows as nothing. */
const ZWSP = '&#8203;';

/**
 * What GitHub turns into a notification or a cross-reference, made plain text: `@user` and
 * `@org/team` (a mention notifies them), `#123`, `GH-123`, `user#123` and `owner/repo#123` (a
 * reference links the issue and puts "mentioned this" on its timeline, so a model could spam any
 * issue it names). GitHub finds them in the rendered HTML's text, after entities and backslash
 * escapes are decoded (html-pipeline's MentionFilter, TeamMentionFilter and GitHub's own
 * IssueMentionFilter, published in html-pipeline's history), so `\@` or `&#64;` would come back as
 * `@`: a zero-width space after `@` (before a letter or digit), `#` or `GH-` (before a digit)
 * leaves no name or number where the patterns need one, and renders as nothing — Renovate writes
 * `@&#8203;` and `#&#8203;` into its pull requests for the same reason (renovatebot/renovate
 * lib/util/markdown.ts). Every `@` is treated so, even after a letter (an e-mail address, a
 * `user@sha` commit link): GitHub sees text nodes, and one can start right after an element.
 * Commit hashes stay as typed: GitHub links one that exists in the repository, which notifies no
 * one and adds nothing to any timeline. Runs last, once: its entity must not be escaped again.
 */
function unreferenced(text: string): string {
  return text.replace(/@(?=[A-Za-z0-9])|#(?=\d)|GH-(?=\d)/gi, (m) => `${m}${ZWSP}`);
}

/**
 * An entity a renderer would decode (`&#x202E;`, `&lt;`, `&amp;`) in text left as typed: its `&`
 * escaped, so it shows as typed and cannot bring back a bidi control or markup.
 */
function inertEntities(text: string): string {
  return text.replace(/&(?=#\d+;|#x[0-9a-f]+;|[a-z][a-z0-9]*;)/gi, '\\&');
}

/**
 * A line that starts a paragraph must not open a block: heading `#`, quote `>`, list `-+*` or
 * `1.`/`1)`, thematic break or setext underline (`---`, `===`), a one-column table's delimiter row
 * (`:---`), fence, indented code, HTML.
 * Leading blanks are dropped (four would open indented code) and the first mark is escaped.
 */
function lineStart(line: string): string {
  const t = line.replace(/^[ \t]+/, '');
  if (/^[#>+\-=:]/.test(t)) return `\\${t}`;
  const ordered = /^(\d{1,9})([.)])/.exec(t);
  if (ordered) return `${ordered[1]}\\${t.slice(ordered[1]!.length)}`;
  return t;
}

/**
 * Plain text for one line of a line-based format (the digest's `LABEL: value` lines, shown in a
 * code block): control characters dropped and newlines folded, so no field can forge a label line.
 */
export function oneLine(text: string): string {
  // A whitespace run with a newline becomes one space, a tab a space: one match per run, as
  // `\s*\n\s*` rescanned a run of spaces from each of its positions (quadratic).
  return clean(text)
    .replace(/\s+/g, (run) => (run.includes('\n') ? ' ' : run.replace(/\t/g, ' ')))
    .trim();
}

/** Text for one line (a name, a label, a reason, a file): newlines folded, escaped. */
export function inline(text: string): string {
  return unlinked(inlineMarks(html(clean(text).replace(/[\n\t]+/g, ' '))))
    .replace(/ {2,}/g, ' ')
    .trim();
}

/** Text safe inside one Markdown table cell (an escaped one-line field; `|` cannot end the cell). */
export function cell(text: string): string {
  return inline(text) || ' ';
}

/** Paragraph text that may span lines: every line escaped so none of them opens a block. */
export function paragraph(text: string): string {
  return clean(text)
    .split('\n')
    .map((l) => lineStart(unlinked(inlineMarks(html(l.replace(/\t/g, ' '))))).trimEnd())
    .join('\n');
}

/**
 * Like `paragraph`, but HTML is left as typed: for Markdown a person reads and edits in the review,
 * whose renderer shows HTML as text (markdown-it with `html: false`). Any document built from it
 * passes it through `markdownBody`, which escapes `<` again. Entities and links are made inert
 * here too (`\&#x202E;`, `https\://`), as the person never wrote them.
 */
export function editableParagraph(text: string): string {
  return clean(text)
    .split('\n')
    .map((l) => lineStart(unlinked(inertEntities(inlineMarks(l.replace(/\t/g, ' '))))).trimEnd())
    .join('\n');
}

/** Quotes text as a Markdown blockquote; nothing inside can close the quote or open a block. */
export function quote(text: string): string {
  return paragraph(text)
    .split('\n')
    .map((l) => `> ${l}`.trimEnd())
    .join('\n');
}

/** A heading of `level` whose title is an escaped one-line field. */
export function heading(level: number, title: string): string {
  return `${'#'.repeat(level)} ${inline(title)}`;
}

function longestRun(text: string, ch: string): number {
  let best = 0;
  for (const m of text.matchAll(new RegExp(`\\${ch}+`, 'g'))) best = Math.max(best, m[0].length);
  return best;
}

/**
 * A fenced code block whose fence is longer than any backtick run in the text, so no line of it can
 * close the fence. Code is shown literally by every renderer, so its text needs no other escaping.
 */
export function codeBlock(text: string, info = ''): string {
  const body = clean(text);
  const fence = '`'.repeat(Math.max(3, longestRun(body, '`') + 1));
  return `${fence}${info}\n${body}\n${fence}`;
}

/** An inline code span (a file path, an id): one line, fenced by more backticks than it holds. */
export function codeSpan(text: string): string {
  const body = clean(text).replace(/[\n\t]+/g, ' ');
  const fence = '`'.repeat(longestRun(body, '`') + 1);
  const pad = /^[`\s]|[`\s]$/.test(body) ? ' ' : '';
  return `${fence}${pad}${body}${pad}${fence}`;
}

/** A value as one JSON line (a MANIFEST.jsonl entry): newlines are escaped by JSON, U+2028/9 here too. */
export function jsonLine(value: unknown): string {
  return JSON.stringify(value)
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/** A MANIFEST.jsonl text without the lines of one meeting (newline-terminated, or empty); lines that do not parse are kept. */
export function withoutMeeting(manifest: string, meetingId: string): string {
  const kept = manifest.split('\n').filter((l) => {
    if (!l.trim()) return false;
    try {
      return (JSON.parse(l) as { id?: unknown }).id !== meetingId;
    } catch {
      return true;
    }
  });
  return kept.length > 0 ? `${kept.join('\n')}\n` : '';
}

/**
 * Markdown a person wrote or edited (a reviewed digest section), made safe to place in a document
 * under a heading the document owns: control characters dropped, HTML shown as text (`<` as
 * `&lt;`; an entity the text already holds stays one), and a line
 * that would open a heading, a setext underline, a thematic break or a fence that swallows the
 * rest of the document is escaped. Emphasis, lists and links the person wrote keep working, and so
 * does an `@name` or `#123` they typed: the model's text in it was made plain when the digest was
 * written (`editableParagraph`), and what the person adds is theirs (a record is a file, where
 * GitHub notifies no one).
 */
export function markdownBody(text: string): string {
  return clean(text)
    .split('\n')
    .map((l) => {
      const t = l.replace(/\t/g, '    ').replace(/</g, '&lt;').trimEnd();
      return /^ {0,3}(#|=+$|(-\s*){3,}$|(\*\s*){3,}$|(_\s*){3,}$|```|~~~)/.test(t) ? `\\${t.trimStart()}` : t;
    })
    .join('\n')
    .trim();
}

/** A line of Markdown that must not open a block where it stands (a list item's text): its first mark escaped. */
export function lineSafe(line: string): string {
  return lineStart(line);
}

/** Markdown folded onto one line (an outcome after "Chosen option:"): nothing in it can open a block. */
export function markdownLine(text: string): string {
  return markdownBody(text)
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .join(' ');
}

/**
 * A YAML double-quoted scalar for a front-matter value: one line (controls dropped, newlines
 * folded), `"` and `\` escaped, and the characters YAML 1.1 reads as line breaks (NEL, U+2028/9)
 * folded too, so no value can end the front matter or add a key.
 */
export function yamlString(text: string): string {
  const body = clean(text)
    .replace(/[\n\t\u0085\u2028\u2029]+/g, ' ')
    .trim();
  // `<`, `>`, `&`, `[`, `]` as \u escapes too: a renderer that shows front matter as Markdown
  // (no YAML support) must find no HTML, link or image in a value.
  return `"${body
    .replace(/\\/g, '\\\\')
    .replace(/"/g, '\\"')
    .replace(/[<>&[\]]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)}"`;
}
