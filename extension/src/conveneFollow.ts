/**
 * Start a meeting and follow it to its digest, on the extension's daemon link. Shaped like the
 * client's `convene` (the one "convene and follow" path of issue 27): this is where the extension
 * plugs into it, so the tool and `@roundtable` never follow a meeting themselves.
 */
import type { MeetingState, StartMeetingParams } from '../../protocol/src';
import { fold } from '../../protocol/src';
import { oneLine } from '../../protocol/src/markdown';
import type { DaemonLink } from './daemonLink';

/** One finished round, for a caller that shows progress. */
export interface RoundProgress {
  round: number;
  posts: { speaker: string; model?: string; stance?: string; gist: string }[];
  judge?: string;
}

export interface LinkConveneResult {
  meetingId: string;
  state: MeetingState;
  outcome: string;
  cut: boolean;
}

/** Longest gist of a post in a progress line. */
const GIST_CHARS = 160;

function gist(text: string): string {
  const line = oneLine(text);
  return line.length > GIST_CHARS ? `${line.slice(0, GIST_CHARS - 1)}…` : line;
}

export function roundProgress(s: MeetingState, round: number): RoundProgress | undefined {
  const r = s.rounds.find((x) => x.round === round);
  if (!r) return undefined;
  const posts = Object.entries(r.contributions).map(([speaker, m]) => {
    const model = s.participants.find((p) => p.name === speaker)?.model;
    const stance = r.stances[speaker]?.stance;
    return { speaker, ...(model ? { model } : {}), ...(stance ? { stance: String(stance) } : {}), gist: gist(m.text) };
  });
  return { round, posts, ...(r.judge ? { judge: gist(r.judge.text) } : {}) };
}

/** Settled for a caller: the digest is out, or a vote waits for the person. */
function settled(s: MeetingState): boolean {
  return s.digest !== undefined || s.status === 'awaiting_human';
}

/** The outcome in one line of plain text. */
export function outcomeLine(s: MeetingState): string {
  if (s.status === 'awaiting_human')
    return `Escalated to you: ${s.escalation?.reasons.join('; ') ?? 'the vote did not settle'}`;
  const d = s.digest?.digest;
  if (!d) return 'No digest yet';
  if (d.noDecision) return `No decision: ${oneLine(d.noDecision)}`;
  return oneLine(d.consensusStatement);
}

/**
 * Starts the meeting, lets `started` follow it (Meetings view, room, review), reports each
 * finished round, cuts it when `signal` aborts, and resolves once it has settled.
 */
export async function conveneOnLink(
  link: DaemonLink,
  params: StartMeetingParams,
  opts: { signal?: AbortSignal; onRound?: (p: RoundProgress) => void; started: (meetingId: string) => Promise<void> },
): Promise<LinkConveneResult> {
  const { meetingId } = await link.request('meeting/start', params);
  let cut = false;
  const cutNow = (): void => {
    cut = true;
    void link.request('meeting/cut', { meetingId, reason: 'cancelled by whoever convened it' }).catch(() => undefined);
  };
  const state = (): MeetingState => fold(link.logs.get(meetingId) ?? []);
  let reported = 0;
  const report = (s: MeetingState): void => {
    // A round is finished once the next one starts or the meeting closes.
    const finished = s.status === 'closed' || s.status === 'awaiting_human' ? s.rounds.length : s.rounds.length - 1;
    for (; reported < finished; reported++) {
      const p = roundProgress(s, s.rounds[reported]!.round);
      if (p) opts.onRound?.(p);
    }
  };
  const done = new Promise<MeetingState>((resolve) => {
    const check = (): void => {
      const s = state();
      report(s);
      if (settled(s)) {
        sub.dispose();
        resolve(s);
      }
    };
    const sub = link.onEvent((e) => {
      if (e.meetingId === meetingId) check();
    });
    queueMicrotask(check);
  });
  if (opts.signal?.aborted) cutNow();
  opts.signal?.addEventListener('abort', cutNow, { once: true });
  try {
    await opts.started(meetingId);
    const s = await done;
    return { meetingId, state: s, outcome: outcomeLine(s), cut: cut || s.closed?.reason === 'cut' };
  } finally {
    opts.signal?.removeEventListener('abort', cutNow);
  }
}
