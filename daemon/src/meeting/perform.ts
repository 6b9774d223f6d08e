/**
 * Performs one step: the steps every mode shares are here (briefing, rounds, close, digest);
 * the others go to the meeting's mode.
 */
import { currentRound, messageIdOf, remainingWorkers } from '@roundtable/protocol';
import { replyCap } from './budget';
import { buildDigest, renderDigest } from './digest';
import { parseDigestReply } from './digestReply';
import { MODES } from './modes';
import type { StepContext } from './modes/types';
import { speakingOrder } from './order';
import { briefingPrompt, digestPrompt } from './prompts';
import { isCommonStep, type Step } from './steps';
import { contextOptions } from '../context/render';
import { thinkingOf } from './thinking';

export interface RunnerClockInfo {
  /** Milliseconds left before the meeting's time limit (Infinity when none applies). */
  timeLeftMs(): number;
}

type Run = StepContext & RunnerClockInfo;

export async function performStep(step: Step, run: Run): Promise<void> {
  if (!isCommonStep(step)) return MODES[run.state.mode].perform(step, run);
  switch (step.kind) {
    case 'briefing':
      return performBriefing(run);
    case 'start_round':
      return startRound(step, run);
    case 'close':
      await run.emit({ type: 'meeting_closed', reason: step.reason, ...(step.detail ? { detail: step.detail } : {}) });
      return;
    case 'digest':
      return performDigest(run);
    case 'await_human':
    case 'done':
      return;
  }
}

async function performBriefing(run: Run): Promise<void> {
  const s = run.state;
  const assistant = run.assistant();
  const r = await run.call({
    participant: assistant,
    purpose: 'briefing',
    round: 0,
    messages: briefingPrompt(s, assistant, contextOptions(s)),
    cap: replyCap(s, 'briefing'),
  });
  if (run.halted) return;
  const said = r.ok
    ? r.result.text.trim()
    : `Topic: ${s.topic}. (The assistant could not open the meeting: ${r.error}.)`;
  const spoken = run.fit(said || `Topic: ${s.topic}.`);
  if (!spoken) return run.checkBudget();
  await run.emit({
    type: 'message_posted',
    messageId: messageIdOf('briefing', 0, assistant.name),
    from: assistant.name,
    role: assistant.role,
    round: 0,
    kind: 'briefing',
    text: spoken.text,
    tokens: spoken.tokens,
    ...(r.ok ? thinkingOf(r.result) : {}),
  });
  return run.checkBudget();
}

async function startRound(step: Extract<Step, { kind: 'start_round' }>, run: Run): Promise<void> {
  const s = run.state;
  const previous = currentRound(s);
  const active = remainingWorkers(s)
    .map((w) => w.name)
    .filter((w) => !s.passed.includes(w));
  const speakers = speakingOrder(active, s.config.order, s.config.seed, step.round, previous?.speakers.at(-1));
  await run.emit({ type: 'round_started', round: step.round, speakers, final: step.final });
}

async function performDigest(run: Run): Promise<void> {
  const s = run.state;
  // A review's report is its digest: computed from the verdicts, no model asked to narrate it.
  if (s.config.review) return recordDigestAlone(run);
  const assistant = run.assistant();
  // The time limit bounds the whole run: with no time left the digest is computed alone.
  const timeLeft = run.timeLeftMs();
  const r =
    timeLeft > 0
      ? await run.call({
          participant: assistant,
          purpose: 'digest',
          round: currentRound(s)?.round ?? 0,
          messages: digestPrompt(s, assistant, contextOptions(s)),
          cap: replyCap(s, 'digest'),
          timeoutMs: Math.min(s.config.turnTimeoutMs, timeLeft),
          // The meeting's own signal may be aborted (cut, budget); the digest is written regardless.
          signal: new AbortController().signal,
        })
      : undefined;
  const narrative = r?.ok ? parseDigestReply(r.result.text) : {};
  const failure = !r
    ? 'no time was left for the digest'
    : r.ok
      ? undefined
      : `${assistant.name} (${assistant.model}) failed: ${r.error}`;
  const digest = buildDigest(
    s,
    narrative,
    r?.ok ? { participant: assistant, usage: r.result.usage } : undefined,
    failure,
  );
  await run.emit({ type: 'digest_ready', digest, text: renderDigest(digest) });
}

/** The digest computed from the log alone, with no model call: a review's, or after the digest step itself failed. */
export async function recordDigestAlone(run: Run, failure?: string): Promise<void> {
  const digest = buildDigest(run.state, {}, undefined, failure);
  await run.emit({ type: 'digest_ready', digest, text: renderDigest(digest) });
}
