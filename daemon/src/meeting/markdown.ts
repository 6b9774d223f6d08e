/** Markdown helpers shared by the minutes and the consensus report. */

/** Quotes text as a Markdown blockquote so nothing an agent wrote can pass for the document's own structure. */
export function quote(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .map((l) => `> ${l}`.trimEnd())
    .join('\n');
}

/** Text safe inside one Markdown table cell. */
export function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}
