/**
 * The client's one "convene and follow" path (`convene`, client/src/convene.ts), run from the
 * extension. It runs on a connection of its own: the daemon keeps one subscription per connection
 * and meeting, and convene unsubscribes when it is done, which on the window's shared connection
 * would stop the Meetings view, the room and the review from following the meeting.
 */
import type { StartMeetingParams } from '@roundtable/protocol';
import { connectDaemon, convene, findDaemon, type ConveneResult, type RoundProgress } from '@roundtable/client';
import { dataDir, type DaemonLink } from './daemonLink';

/**
 * Starts the meeting and follows it to its digest; `started` runs once, at its first event, so the
 * window follows it like any meeting started here. Abort cuts it; the digest still comes back.
 */
export async function conveneOnLink(
  link: Pick<DaemonLink, 'client'>,
  params: StartMeetingParams,
  opts: { signal?: AbortSignal; onRound?: (p: RoundProgress) => void; started: (meetingId: string) => Promise<void> },
): Promise<ConveneResult> {
  // Starts the daemon when none runs, as every request of the window does.
  await link.client();
  const found = await findDaemon(dataDir());
  if (!found) throw new Error('The Roundtable daemon stopped: run "Roundtable: Show Log" to see why, then try again.');
  const conn = await connectDaemon(found.info.port, found.token, { client: 'vscode convene' });
  let shown: Promise<void> | undefined;
  try {
    const result = await convene(conn, params, {
      ...(opts.signal ? { signal: opts.signal } : {}),
      ...(opts.onRound ? { onRound: opts.onRound } : {}),
      onEvent: (e) => {
        shown ??= opts.started(e.meetingId);
      },
    });
    await shown;
    return result;
  } finally {
    await conn.close();
  }
}
