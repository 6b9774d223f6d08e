/**
 * Markdown for the webviews (the room's agent text and the digest review), safely: markdown-it
 * with raw HTML off (every `<` an agent writes comes out escaped), no images (nothing is fetched
 * because a model wrote a URL), and links only to http(s) and mailto (no `javascript:`, no
 * `command:` URIs) — VS Code opens those outside the webview, and only when a person clicks.
 */
import MarkdownIt from 'markdown-it';
import { visibleText } from '@roundtable/protocol';
import { stripStanceMarkers } from '@roundtable/protocol/stance';

const md = new MarkdownIt({ html: false, linkify: false, typographer: false, breaks: true });
md.disable(['image']);
md.validateLink = (url: string) => /^(https?:\/\/|mailto:)/i.test(url.trim());
const defaultLinkOpen =
  md.renderer.rules.link_open ?? ((tokens, idx, options, _env, self) => self.renderToken(tokens, idx, options));
md.renderer.rules.link_open = (tokens, idx, options, env, self) => {
  const t = tokens[idx];
  t?.attrSet('rel', 'noopener noreferrer');
  t?.attrSet('title', t.attrGet('href') ?? '');
  return defaultLinkOpen(tokens, idx, options, env, self);
};

/**
 * Safe HTML for an agent's Markdown. The text arrives through `visibleText` already, but markdown-it
 * decodes entities (`&#x202E;`, `&#8203;`) into the characters they name: its output goes through
 * `visibleText` again, so no bidi control reaches the DOM by way of an entity either.
 */
export function markdownHtml(text: string): string {
  return visibleText(md.render(text));
}

/** The Markdown rendered into a new `<div class="markdown">`. */
export function renderMarkdown(doc: Document, text: string, attrs: Record<string, string> = {}): HTMLElement {
  const box = doc.createElement('div');
  box.className = 'markdown';
  for (const [k, v] of Object.entries(attrs)) box.setAttribute(k, v);
  // Safe: markdown-it escapes every character of the source it does not turn into its own tags.
  box.innerHTML = markdownHtml(text);
  return box;
}

/** The body without its stance marker(s): the stance is shown as a badge instead. */
export function stripStance(text: string): string {
  return stripStanceMarkers(text).trimEnd();
}

/** Renders each distinct text once: an unchanged message costs nothing on the next frame. */
export class MarkdownCache {
  private readonly cache = new Map<string, { text: string; html: string }>();

  html(key: string, text: string): string {
    const hit = this.cache.get(key);
    if (hit?.text === text) return hit.html;
    const html = markdownHtml(text);
    this.cache.set(key, { text, html });
    return html;
  }
}
