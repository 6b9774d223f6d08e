/**
 * The expected bill of a meeting about to start, in one line, for the start flow to show before
 * the user confirms (issue 13: nobody is surprised by the bill).
 */
import type { StartMeetingParams } from '@roundtable/protocol';
import { formatEstimateShort } from '@roundtable/protocol';
import type { DaemonLink } from './daemonLink';

/**
 * Asks the daemon for `meeting/estimate` (pure: nothing is started or called) with `prepare`: the
 * daemon keeps what it read for this connection, and `startToken` starts it without sending the
 * topic or reading the context again. The API key is not sent: an estimate needs none. `line` is
 * undefined when the daemon cannot say; the start itself then reports what is wrong.
 */
export async function estimateLine(
  link: Pick<DaemonLink, 'request'>,
  params: StartMeetingParams,
  opts: { prepare: boolean } = { prepare: true },
): Promise<{ line: string | undefined; startToken?: string }> {
  const { apiKey: _key, ...rest } = params;
  try {
    const { startToken, ...estimate } = await link.request('meeting/estimate', { ...rest, prepare: opts.prepare });
    return { line: formatEstimateShort(estimate), ...(startToken ? { startToken } : {}) };
  } catch {
    return { line: undefined };
  }
}
