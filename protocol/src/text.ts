/** File-name slug of a topic: lowercase ASCII words joined by `-`, at most 60 characters. */
export function slugify(text: string, fallback = 'meeting'): string {
  const slug = text
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/g, '');
  return slug || fallback;
}

/**
 * Characters no model or agent text may carry into a prompt, a document or a terminal, as one
 * regex character-class body: C0 and C1 controls except tab and newline, and the bidi overrides
 * and isolates that make text read differently from what it is. Each place adds its own extras.
 */
export const UNSAFE_CHARS = '\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f\\u202a-\\u202e\\u2066-\\u2069';

/** Runs of whitespace (newlines included) as one space, trimmed: an error detail fit for one log line. */
export function collapseWhitespace(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
