/**
 * What a start reads before its meeting opens, read once: a review's change and decision records,
 * or the context the person attached. The estimate plays the meeting on it, and a start prepared by
 * an estimate (`meeting/startPrepared`) opens the meeting on it without reading the disk again.
 */
import type { ContextAttached, StartMeetingParams } from '@roundtable/protocol';
import { DEFAULT_CONFIG } from '@roundtable/protocol';
import { attachContext } from '../context/attach';
import { reviewOf } from '../review/prepare';

export interface PreparedStart {
  /** The params the meeting opens with (a review's carry its scope in `config.review`). */
  params: StartMeetingParams;
  /** The `context_attached` body to log; `null`: read, and there is nothing to attach. */
  context: ContextAttached | null;
}

/** Reads what `params` asks to be read at the start (through the workspace gate), once. */
export async function prepareStart(params: StartMeetingParams): Promise<PreparedStart> {
  const review = await reviewOf(params);
  if (review) return { params: review.params, context: review.context };
  const attached = await attachContext(params, { ...DEFAULT_CONFIG, ...params.config });
  if (!attached) return { params, context: null };
  const { type: _type, ...context } = attached;
  return { params, context };
}
