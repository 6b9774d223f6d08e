/**
 * STAND-IN for `convene` from client/src/convene.ts (branch `mirror`), written to its contract so
 * `deliberate` can be built before it lands; replaced by the real one on merge.
 */
import type { Digest, MeetingEvent, MeetingState, StartMeetingParams } from '../../../protocol/src';
import { fold, settles } from '../../../protocol/src';
import { watchMeeting, type DaemonConnection } from '../../../client/src';

export interface RoundProgress {
  round: number;
  posts: { speaker: string; model?: string; stance?: string; gist: string }[];
  judge?: string;
}

export interface ConveneOptions {
  signal?: AbortSignal;
  onRound?: (p: RoundProgress) => void;
  onEvent?: (e: MeetingEvent, s: MeetingState) => void;
}

export interface ConveneResult {
  meetingId: string;
  state: MeetingState;
  digest: Digest | undefined;
  outcome: string;
  cut: boolean;
}

function roundProgress(s: MeetingState, round: number): RoundProgress | undefined {
  const r = s.rounds.find((x) => x.round === round);
  if (!r) return undefined;
  const posts = Object.values(r.contributions).map((m) => {
    const p = s.participants.find((x) => x.name === m.from);
    const stance = r.stances[m.from]?.stance;
    return {
      speaker: m.from,
      ...(p?.model ? { model: p.model } : {}),
      ...(stance ? { stance: String(stance) } : {}),
      gist: m.text.split('\n').find((l) => l.trim()) ?? '',
    };
  });
  return { round, posts, ...(r.judge ? { judge: r.judge.text } : {}) };
}

export async function convene(
  conn: DaemonConnection,
  params: StartMeetingParams,
  opts: ConveneOptions = {},
): Promise<ConveneResult> {
  const { meetingId } = await conn.rpc.request('meeting/start', params);
  const events: MeetingEvent[] = [];
  let reported = 0;
  const watch = await watchMeeting(conn, meetingId, (e) => {
    events.push(e);
    const s = fold(events);
    opts.onEvent?.(e, s);
    // A round is done when the next starts or the meeting closes.
    const done = e.type === 'round_started' ? e.round - 1 : e.type === 'meeting_closed' ? s.rounds.length : 0;
    for (let r = reported + 1; r <= done; r++) {
      const p = roundProgress(s, r);
      if (p) opts.onRound?.(p);
    }
    reported = Math.max(reported, done);
  });
  let cut = false;
  const onAbort = (): void => {
    cut = true;
    void conn.rpc.request('meeting/cut', { meetingId, reason: 'cancelled by the MCP client' }).catch(() => undefined);
  };
  if (opts.signal?.aborted) onAbort();
  else opts.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    await watch.waitFor(settles, 0);
  } finally {
    opts.signal?.removeEventListener('abort', onAbort);
  }
  const state = fold(watch.events);
  return {
    meetingId,
    state,
    digest: state.digest?.digest,
    outcome: state.digest?.digest.consensusStatement ?? state.closed?.reason ?? state.status,
    cut,
  };
}
