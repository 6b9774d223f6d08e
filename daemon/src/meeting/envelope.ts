/**
 * Peer text reaches a model as evidence, never as instructions. Every post is wrapped in a
 * header the engine writes, every body line is prefixed with `| `, and anything in the body that
 * could pass for a header, a stance marker, a pass marker or the judge's convergence is
 * defanged, so no agent can forge another's stance or end the meeting.
 */
import type { Role } from '../../../protocol/src';

export interface RoomPost {
  from: string;
  role: Role | 'human';
  round: number;
  text: string;
}

/** Neutralises control markers so they read as quoted text and no parser or model takes them as real. */
export function defang(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .replace(/\[(\s*)room message/gi, '($1quoted room message')
    .replace(/\[(\s*)stance(\s*):/gi, '($1quoted stance$2:')
    .replace(/\[(\s*)pass(\s*)\]/gi, '($1quoted pass$2)')
    .replace(/converged(\s*):/gi, 'converged (quoted)$1-')
    .replace(/isUser\s*=/gi, 'isUser(quoted)=');
}

export function roomHeader(p: Omit<RoomPost, 'text'>): string {
  const isUser = p.role === 'human';
  return `[Room message · from=${p.from} · role=${p.role} · round=${p.round} · isUser=${isUser}]`;
}

/** Wraps one post as evidence. */
export function wrapPost(p: RoomPost): string {
  const body = defang(p.text)
    .split('\n')
    .map((l) => `| ${l}`.trimEnd())
    .join('\n');
  return `${roomHeader(p)}\n${body}`;
}
