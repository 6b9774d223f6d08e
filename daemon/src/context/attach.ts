/** The engine's one call into context: the `context_attached` event for a meeting being opened. */
import type { EventBody, MeetingConfig, StartMeetingParams } from '../../../protocol/src';
import { DEFAULT_CONTEXT_MAX_TOKENS } from '../../../protocol/src';
import { readContext } from './readContext';

export async function attachContext(
  params: StartMeetingParams,
  config: MeetingConfig,
  workspace: string | undefined,
): Promise<Extract<EventBody, { type: 'context_attached' }> | undefined> {
  const body = await readContext({
    workspace,
    request: params.context ?? {},
    topic: params.topic,
    budget: config.contextMaxTokens ?? DEFAULT_CONTEXT_MAX_TOKENS,
  });
  // Nothing found and nothing to say (e.g. no decisions folder yet): the log stays as it was.
  if (body.items.length === 0 && body.refused.length === 0 && !body.cut) return undefined;
  return { type: 'context_attached', ...body };
}
