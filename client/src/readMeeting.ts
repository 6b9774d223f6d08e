/** Reads a whole meeting through `meeting/get` pages, so a log of any size fits in 4 MiB frames. */
import type { MeetingEvent, MeetingSummary, RpcClient } from '@roundtable/protocol';

export async function readMeeting(
  conn: { rpc: Pick<RpcClient, 'request'> },
  meetingId: string,
  opts: { limit?: number } = {},
): Promise<{ summary: MeetingSummary; events: MeetingEvent[] }> {
  const events: MeetingEvent[] = [];
  for (let sinceSeq = 0; ;) {
    const page = await conn.rpc.request('meeting/get', {
      meetingId,
      sinceSeq,
      ...(opts.limit !== undefined ? { limit: opts.limit } : {}),
    });
    events.push(...page.events);
    if (!page.more) return { summary: page.summary, events };
    if (page.lastSeq <= sinceSeq) throw new Error(`meeting/get of ${meetingId} made no progress at seq ${sinceSeq}`);
    sinceSeq = page.lastSeq;
  }
}
