/**
 * One model call: the provider chosen for the participant, a per-call timeout on the injected
 * clock, the meeting's abort signal, live deltas, and failures turned into an outcome (never
 * thrown) so the caller records them in one place.
 */
import type { CallPurpose, Participant, ChatMessage } from '@roundtable/protocol';
import { messageIdOf } from '@roundtable/protocol';
import { ProviderError, type ChatResult, type JsonReply, type ToolLoop } from '../providers/types';
import type { EngineDeps } from './ports';
import type { ReplyChannel } from '../providers/reply';
import { StreamRedactor } from './keyRedaction';

export interface ModelCallOptions {
  participant: Participant;
  purpose: CallPurpose;
  round: number;
  messages: ChatMessage[];
  /** `max_tokens` asked of the server (planned from the reply cap and the budget left). */
  maxTokens: number;
  /** Close the stream at `maxTokens` whatever the server does (a billed budget). */
  stopAtMaxTokens?: boolean;
  /** The meeting's signal: a cut aborts the call. */
  signal: AbortSignal;
  timeoutMs: number;
  /** Ask for a JSON reply of this shape (consensus mode). */
  json?: JsonReply;
  meetingId: string;
  topic: string;
  /** Read-only workspace tools offered for this call (issue 16). */
  tools?: ToolLoop;
}

/**
 * A call's outcome. `serverFailed`: the provider itself failed after its own retries (an HTTP
 * error, a refused connection) — the seat's server is gone for good, unlike a reply cut off while
 * thinking, a budget with no room or a cut.
 */
export type CallOutcome =
  { ok: true; result: ChatResult } | { ok: false; reason: 'timeout' | 'error'; error: string; serverFailed?: true };

class TurnTimeout extends Error {}

function abortReason(signal: AbortSignal): string {
  const r: unknown = signal.reason;
  return r instanceof Error ? r.message : typeof r === 'string' ? r : 'aborted';
}

export async function callModel(
  ports: Pick<EngineDeps, 'providerFor' | 'clock' | 'onDelta' | 'schedule' | 'secrets'>,
  o: ModelCallOptions,
): Promise<CallOutcome> {
  const p = o.participant;
  const turn = new AbortController();
  const cancelTimer = ports.clock.setTimer(o.timeoutMs, () =>
    turn.abort(new TurnTimeout(`${p.name} did not answer within ${Math.round(o.timeoutMs / 1000)} s`)),
  );
  const onMeetingAbort = (): void => turn.abort(o.signal.reason);
  if (o.signal.aborted) onMeetingAbort();
  else o.signal.addEventListener('abort', onMeetingAbort, { once: true });
  const messageId = messageIdOf(o.purpose, o.round, p.name);
  const onDelta = ports.onDelta;
  // One redactor per channel: a key split across two chunks is held back, never shown live.
  const redactors: Record<ReplyChannel, StreamRedactor> = {
    reply: new StreamRedactor(ports.secrets ?? []),
    thinking: new StreamRedactor(ports.secrets ?? []),
  };
  try {
    const schedule = ports.schedule ?? (<T>(_p: Participant, f: () => Promise<T>) => f());
    // The turn's signal: a timed-out or cut call leaves the endpoint's queue, or gives its slot up.
    const result = await schedule(
      p,
      () =>
        ports.providerFor(p).chat({
          model: p.model,
          messages: o.messages,
          maxTokens: o.maxTokens,
          ...(o.stopAtMaxTokens ? { stopAtMaxTokens: true } : {}),
          signal: turn.signal,
          ...(o.json ? { json: o.json } : {}),
          ...(o.tools ? { tools: o.tools } : {}),
          ...(onDelta
            ? {
                onDelta: (chunk: string, channel: ReplyChannel) => {
                  const text = redactors[channel].push(chunk);
                  if (!text) return;
                  onDelta({
                    meetingId: o.meetingId,
                    messageId,
                    purpose: o.purpose,
                    from: p.name,
                    round: o.round,
                    text,
                    ...(channel === 'thinking' ? { thinking: true as const } : {}),
                  });
                },
              }
            : {}),
          meta: { participant: p.name, role: p.role, purpose: o.purpose, round: o.round, topic: o.topic },
        }),
      turn.signal,
    );
    if (turn.signal.aborted) throw turn.signal.reason;
    return { ok: true, result };
  } catch (e) {
    if (turn.signal.reason instanceof TurnTimeout) {
      return { ok: false, reason: 'timeout', error: turn.signal.reason.message };
    }
    if (turn.signal.aborted) return { ok: false, reason: 'error', error: abortReason(turn.signal) };
    const message = e instanceof ProviderError || e instanceof Error ? e.message : String(e);
    return { ok: false, reason: 'error', error: message, serverFailed: true };
  } finally {
    cancelTimer();
    o.signal.removeEventListener('abort', onMeetingAbort);
  }
}
