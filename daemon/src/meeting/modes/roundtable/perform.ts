/** Roundtable mode's steps: the workers' turns, their stances, consensus, the judge, the summary. */
import type { Participant, RoundState, ChatMessage } from '@roundtable/protocol';
import { messageIdOf, remainingWorkers, workersOf } from '@roundtable/protocol';
import { thinkingOf } from '../../thinking';
import { countTokens } from '../../../providers/tokens';
import { capReply, replyCap } from '../../budget';
import { evaluateConsensus } from '../../consensus';
import { clipLine } from '../../digest';
import { parseJudge } from '../../judge';
import { judgePrompt, stanceFollowupPrompt, summaryPrompt, workerPrompt } from '../../prompts';
import { isPass, parseStance } from '@roundtable/protocol/stance';
import type { ModeStep } from '../../steps';
import type { StepContext } from '../types';
import { contextOptions } from '../../../context/render';

export async function performRoundtable(step: ModeStep, run: StepContext): Promise<void> {
  switch (step.kind) {
    case 'turns':
      if (run.state.config.order === 'parallel') {
        const share = step.pending.length;
        await Promise.all(step.pending.map((w) => turn(run, step.round, w, share)));
      } else {
        for (const w of step.pending) {
          if (run.halted) break;
          await turn(run, step.round, w, 1);
        }
      }
      return;
    case 'stance': {
      const m = step.round.contributions[step.worker];
      if (m) await recordStance(run, step.round.round, step.worker, m.text);
      return;
    }
    case 'consensus': {
      const r = step.round;
      // A worker that left is no voice: neither NEUTRAL nor dissent.
      const seated = r.speakers.filter((w) => !run.state.left?.[w]);
      const votes = seated.map((w) => r.stances[w] ?? { stance: 'UNKNOWN' as const, passed: false });
      await run.emit({ type: 'consensus_evaluated', round: r.round, ...evaluateConsensus(votes) });
      return;
    }
    case 'judge':
      return judge(run, step.round);
    case 'summary':
      return summary(run, step.round);
    case 'judge_and_summary':
      // Independent calls (the review reads this round, the summary the one before): the round
      // costs the slower of the two, not their sum.
      await Promise.all([judge(run, step.round), summary(run, step.summarize)]);
      return;
    default:
      throw new Error(`${step.kind} is not a roundtable step`);
  }
}

/** One worker's turn: ask, post, record the stance (or TIMEOUT / the failure). */
async function turn(run: StepContext, planned: RoundState, name: string, share: number): Promise<void> {
  const s = run.state;
  // The round as it is now: in sequential order, the replies given since it was planned.
  const round = s.rounds.find((r) => r.round === planned.round) ?? planned;
  const me = run.participant(name);
  if (!me) return;
  const cap = replyCap(s, 'turn');
  const messages = workerPrompt(s, me, round, contextOptions(s));
  const r = await run.call({ participant: me, purpose: 'turn', round: round.round, messages, cap, share });
  if (run.halted) return;
  if (!r.ok) {
    await run.failTurn(round.round, name, r);
    const stance = r.reason === 'timeout' ? 'TIMEOUT' : 'UNKNOWN';
    await run.emit({ type: 'stance_recorded', round: round.round, participant: name, stance, passed: false });
    // A server that failed after the provider's retries is final: the seat leaves. A timeout, or
    // a reply cut off while the model was thinking, may pass next round.
    if (r.serverFailed) await leave(run, round.round, me, r.error);
    return;
  }
  const reply = await withStance(run, me, round.round, messages, capReply(r.result.text.trim(), cap));
  if (run.halted) return;
  const spoken = run.fit(reply || '(empty reply)');
  // Nothing left of the budget: the reply is not recorded and the budget rules cut the meeting.
  if (!spoken) return run.checkBudget();
  // Reply and stance are recorded together (one fsync); the budget is checked once both are in.
  const posted = run.emit({
    type: 'message_posted',
    messageId: messageIdOf('turn', round.round, name),
    from: name,
    role: me.role,
    round: round.round,
    kind: 'contribution',
    text: spoken.text,
    tokens: spoken.tokens,
    ...thinkingOf(r.result),
  });
  await Promise.all([posted, recordStance(run, round.round, name, spoken.text)]);
  await run.checkBudget();
}

/**
 * A reply with no readable stance (and no pass) gets one follow-up naming what was missing, before
 * UNKNOWN is recorded; the marker it brings is appended to the reply, so the post says it. The
 * follow-up is a call like any other: billed, and what it adds is spoken.
 */
async function withStance(
  run: StepContext,
  me: Participant,
  round: number,
  turnMessages: ChatMessage[],
  reply: string,
): Promise<string> {
  if (!reply || isPass(reply) || parseStance(reply) !== 'UNKNOWN') return reply;
  const f = await run.call({
    participant: me,
    purpose: 'followup',
    round,
    messages: stanceFollowupPrompt(turnMessages, reply),
    cap: replyCap(run.state, 'followup'),
  });
  // A failed follow-up leaves the reply as it was: UNKNOWN, as before the follow-up.
  if (!f.ok) return reply;
  const marker = f.result.text.trim();
  return parseStance(marker) === 'UNKNOWN' ? reply : `${reply}\n\n${marker}`;
}

/**
 * A worker whose model failed for good leaves the meeting: logged, then said in the room by the
 * assistant in one line (what every view and the workers' transcript show), so nobody reads its
 * silence as a stance.
 */
async function leave(run: StepContext, round: number, me: Participant, error: string): Promise<void> {
  const reason = clipLine(error, 160);
  await run.emit({ type: 'seat_left', round, participant: me.name, reason });
  const a = run.assistant();
  const s = run.state;
  const spoken = run.fit(
    `${me.name} leaves the meeting: its server failed (${reason}). ${remainingWorkers(s).length} of ${workersOf(s).length} workers remain; no stance of ${me.name}'s is counted.`,
  );
  if (!spoken) return run.checkBudget();
  await run.emit({
    type: 'message_posted',
    messageId: `left-${me.name}`,
    from: a.name,
    role: a.role,
    round,
    kind: 'announcement',
    text: spoken.text,
    tokens: spoken.tokens,
  });
}

async function recordStance(run: StepContext, round: number, name: string, text: string): Promise<void> {
  const passed = isPass(text);
  const stance = parseStance(text);
  await run.emit({
    type: 'stance_recorded',
    round,
    participant: name,
    stance: passed && stance === 'UNKNOWN' ? 'PASS' : stance,
    passed,
  });
}

async function judge(run: StepContext, round: RoundState): Promise<void> {
  const s = run.state;
  const me = s.participants.find((p) => p.role === 'judge');
  if (!me) return;
  const r = await run.call({
    participant: me,
    purpose: 'judge',
    round: round.round,
    messages: judgePrompt(s, me, round, contextOptions(s)),
    cap: replyCap(s, 'judge'),
  });
  if (run.halted) return;
  const spoken = r.ok ? run.fit(r.result.text) : { text: '', tokens: 0 };
  if (!spoken) return run.checkBudget();
  const read = r.ok ? parseJudge(spoken.text, round.speakers) : undefined;
  // A failed call and an empty review are failures the room sees, never a clean round.
  if (!r.ok) await run.failTurn(round.round, me.name, r);
  else if (read?.failed)
    await run.failTurn(round.round, me.name, {
      ok: false,
      reason: 'error',
      error: `${me.name} (${me.model}): ${read.failed}`,
    });
  const verdict = read && !read.failed ? read : { text: '', corrections: [] };
  await run.emit({
    type: 'judge_feedback',
    round: round.round,
    text: verdict.text,
    corrections: verdict.corrections,
    ...(verdict.converged !== undefined ? { converged: verdict.converged } : {}),
    tokens: Math.min(countTokens(verdict.text), spoken.tokens),
  });
  await run.checkBudget();
}

/**
 * A compaction: folds every round up to `round` (the one before the round just spoken) into the
 * rolling summary, which replaces them in every prompt from the next round on. Shown the same
 * transcript as everyone (context included), so it reads a cached prefix.
 */
async function summary(run: StepContext, round: RoundState): Promise<void> {
  const s = run.state;
  const assistant = run.assistant();
  const r = await run.call({
    participant: assistant,
    purpose: 'summary',
    round: round.round,
    messages: summaryPrompt(s, assistant, round, contextOptions(s)),
    cap: replyCap(s, 'summary'),
  });
  if (run.halted) return;
  if (!r.ok) await run.failTurn(round.round, assistant.name, r);
  // The cap is enforced by the call, not trusted to the model: prompt size per round stays flat.
  const text = r.ok ? r.result.text.trim() : s.summary;
  await run.emit({ type: 'summary_updated', round: round.round, text, tokens: countTokens(text) });
  // Nothing is spoken here, but with a billed budget basis the summary's call counts: a round must
  // not start past the ceiling.
  await run.checkBudget();
}
