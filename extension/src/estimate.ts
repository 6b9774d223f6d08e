/**
 * The expected bill of a meeting about to start, in one line, for the start flow to show before
 * the user confirms (issue 13: nobody is surprised by the bill).
 */
import type { StartMeetingParams } from '@roundtable/protocol';
import { formatEstimateShort } from '@roundtable/protocol';
import type { DaemonLink } from './daemonLink';

/**
 * Asks the daemon for `meeting/estimate` (pure: nothing is started or called). The API key is not
 * sent: an estimate needs none. `undefined` when the daemon cannot say; the start itself then
 * reports what is wrong.
 */
export async function estimateLine(
  link: Pick<DaemonLink, 'request'>,
  params: StartMeetingParams,
): Promise<string | undefined> {
  const { apiKey: _key, ...rest } = params;
  try {
    return formatEstimateShort(await link.request('meeting/estimate', rest));
  } catch {
    return undefined;
  }
}
