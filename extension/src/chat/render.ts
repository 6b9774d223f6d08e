/**
 * The chat's progress: a compact Markdown table per finished round. Every string that came from a
 * model or an agent (names, models, stances, gists, the judge's notes) passes the protocol's
 * escaping builder, so none of it can add a row, a heading, a link or HTML to the chat. Pure, so
 * the escaping is tested without VS Code. (The answer is the convene path's digest report.)
 */
import { cell, quote } from '@roundtable/protocol/markdown';
import type { RoundProgress } from '@roundtable/client';

/** One round: who spoke, with which model, each stance and gist, then the judge's notes. */
export function roundTable(p: RoundProgress): string {
  const rows = p.posts.map(
    (post) =>
      `| ${cell(post.speaker)} | ${cell(post.model ?? '')} | ${cell(post.stance ?? '—')} | ${cell(post.gist)} |`,
  );
  return [
    `**Round ${p.round}**`,
    '',
    '| Speaker | Model | Stance | Gist |',
    '| --- | --- | --- | --- |',
    ...rows,
    ...(p.judge?.trim() ? ['', quote(`Judge: ${p.judge}`)] : []),
    '',
    '',
  ].join('\n');
}
