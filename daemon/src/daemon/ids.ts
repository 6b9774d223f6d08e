import { randomBytes } from 'node:crypto';

/** Meeting ids: sortable by creation time, unguessable enough to never collide. */
export function newMeetingId(now = Date.now()): string {
  return `m-${now.toString(36)}-${randomBytes(4).toString('hex')}`;
}
