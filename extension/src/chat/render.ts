/**
 * The chat's Markdown: a compact table per finished round and the digest as the answer. Every
 * string that came from a model or an agent (names, stances, gists, the judge's notes, the
 * digest's text) passes the protocol's escaping builder, so none of it can add a row, a heading,
 * a link or HTML to the chat. Pure, so the escaping is tested without VS Code.
 */
import type { Digest } from '../../../protocol/src';
import { consensusLevelLabel, DIGEST_SECTIONS } from '../../../protocol/src/digestMarkdown';
import { terminationLabel } from '../../../protocol/src/labels';
import { cell, inline, paragraph, quote } from '../../../protocol/src/markdown';
import type { RoundProgress } from './conveneContract';

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

/** The answer: outcome, dissent, standing (consensus, confidence, verdict), and whether the debate was worth it. */
export function digestAnswer(o: {
  digest: Digest | undefined;
  outcome: string;
  cut: boolean;
  verdict?: string;
}): string {
  const d = o.digest;
  if (!d) return `**No digest** — ${inline(o.outcome)}\n\n`;
  const standing = [
    consensusLevelLabel(d.consensus),
    `confidence ${d.confidence.toFixed(2)}`,
    ...(o.verdict ? [`verdict: ${inline(o.verdict)}`] : []),
    `ended: ${o.cut ? 'cut from the chat' : terminationLabel(d.terminatedBy)}`,
  ].join(' · ');
  const section = (title: string, body: string): string => `### ${title}\n\n${body.trim() || '—'}\n\n`;
  return [
    section(DIGEST_SECTIONS.outcome, paragraph(d.noDecision ? `No decision: ${d.noDecision}` : d.consensusStatement)),
    section(DIGEST_SECTIONS.dissent, paragraph(d.dissent)),
    section(DIGEST_SECTIONS.standing, standing),
    ...(d.debate ? [section(DIGEST_SECTIONS.debate, paragraph(d.debate))] : []),
  ].join('');
}
