/** The engine's one call into context: the `context_attached` event for a meeting being opened. */
import type { EventBody, MeetingConfig, StartMeetingParams } from '@roundtable/protocol';
import { DEFAULT_CONTEXT_MAX_TOKENS } from '@roundtable/protocol';
import { readContext } from './readContext';

/**
 * The folder a meeting's context is read from: the person's (`contextWorkspace`) when the
 * evidence workspace is not theirs (the shipped demo checks its canned evidence in examples/).
 */
export function contextRoot(params: Pick<StartMeetingParams, 'workspace' | 'contextWorkspace'>): string | undefined {
  return params.contextWorkspace ?? params.workspace;
}

/**
 * Reads the context `params` asks for, from `contextRoot(params)`. Used by the start and by the
 * estimate (which must count the same context every prompt will carry); reads only, never writes.
 * `undefined` when nothing was asked or nothing found.
 */
export async function attachContext(
  params: StartMeetingParams,
  config: MeetingConfig,
): Promise<Extract<EventBody, { type: 'context_attached' }> | undefined> {
  if (!params.context) return undefined;
  const body = await readContext({
    workspace: contextRoot(params),
    request: params.context,
    topic: params.topic,
    budget: config.contextMaxTokens ?? DEFAULT_CONTEXT_MAX_TOKENS,
  });
  // Nothing found and nothing to say (e.g. no decisions folder yet): the log stays as it was.
  if (body.items.length === 0 && body.refused.length === 0 && !body.cut) return undefined;
  return { type: 'context_attached', ...body };
}
