/**
 * Markdown for the webviews through markdown-it with `html: false`: any HTML in the text is shown
 * as text, links are kept only for http(s) and mailto (no `javascript:`, no `command:` URIs), and
 * images are shown as their alt text (the CSP blocks remote images anyway).
 */
import MarkdownIt from 'markdown-it';

const md = new MarkdownIt({ html: false, linkify: false, breaks: false });
md.validateLink = (url: string) => /^(https?:|mailto:)/i.test(url.trim());
md.renderer.rules.image = (tokens, idx) => md.utils.escapeHtml(tokens[idx]?.content ?? '');

/** The Markdown rendered into a new `<div class="markdown">`. */
export function renderMarkdown(doc: Document, text: string, attrs: Record<string, string> = {}): HTMLElement {
  const box = doc.createElement('div');
  box.className = 'markdown';
  for (const [k, v] of Object.entries(attrs)) box.setAttribute(k, v);
  // Safe: markdown-it escapes every character of the source it does not turn into its own tags.
  box.innerHTML = md.render(text);
  return box;
}
