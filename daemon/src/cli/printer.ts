/** Renders the room to a terminal as events arrive: who speaks, stance, round, budget. */
import type { MeetingEvent, MeetingState } from '../../../protocol/src';
import { initialState, reduce } from '../../../protocol/src';
import type { RunSummary } from './runCommand';

const STANCE_COLOR: Record<string, string> = {
  AGREE: '32',
  DISAGREE: '31',
  NEUTRAL: '33',
  UNKNOWN: '90',
  PASS: '36',
  TIMEOUT: '35',
};

export class RoomPrinter {
  private s: MeetingState = initialState();

  constructor(
    private readonly out: NodeJS.WritableStream,
    private readonly color: boolean,
  ) {}

  private c(code: string, text: string): string {
    return this.color ? `\u001b[${code}m${text}\u001b[0m` : text;
  }

  private line(text = ''): void {
    this.out.write(`${text}\n`);
  }

  private indent(text: string): string {
    return text
      .trim()
      .split('\n')
      .map((l) => `    ${l}`)
      .join('\n');
  }

  private budget(): string {
    const pct = Math.round((this.s.spokenTokens / this.s.config.tokenBudget) * 100);
    return `${this.s.spokenTokens.toLocaleString('en-US')}/${this.s.config.tokenBudget.toLocaleString('en-US')} tokens (${pct}%)`;
  }

  event(e: MeetingEvent): void {
    if (e.seq <= this.s.lastSeq) return;
    this.s = reduce(this.s, e);
    switch (e.type) {
      case 'meeting_opened':
        this.line(this.c('1', `Roundtable · ${e.topic}`));
        this.line(`  ${e.participants.map((p) => `${p.name} (${p.role}, ${p.provider}:${p.model})`).join(', ')}`);
        this.line(
          `  up to ${e.config.maxRounds} rounds · budget ${e.config.tokenBudget.toLocaleString('en-US')} tokens · ${e.config.order} order`,
        );
        break;
      case 'round_started':
        this.line();
        this.line(
          this.c(
            '1',
            `── Round ${e.round} of ${this.s.config.maxRounds}${e.final ? ' (final)' : ''} · ${this.budget()} ──`,
          ),
        );
        break;
      case 'message_posted':
        this.line();
        this.line(
          `${this.c('1', e.from)} ${this.c('90', `(${e.role}${e.kind === 'contribution' ? '' : `, ${e.kind}`})`)}`,
        );
        this.line(this.indent(e.text));
        break;
      case 'human_posted':
        this.line();
        this.line(`${this.c('1', e.from)} ${this.c('90', '(human)')}`);
        this.line(this.indent(e.text));
        break;
      case 'stance_recorded':
        this.line(
          `    ${this.c('90', '→')} ${e.participant}: ${this.c(STANCE_COLOR[e.stance] ?? '0', e.stance)}${e.passed ? ' (passes)' : ''}`,
        );
        break;
      case 'turn_failed':
        this.line(
          this.c('35', `    ! ${e.participant} ${e.reason === 'timeout' ? 'timed out' : 'failed'}: ${e.detail}`),
        );
        break;
      case 'consensus_evaluated':
        this.line(`  consensus: ${e.level} (${e.agree} agree, ${e.disagree} disagree, ${e.neutral} neutral)`);
        break;
      case 'judge_feedback':
        this.line();
        this.line(`${this.c('1', 'judge')} ${this.c('90', `(round ${e.round})`)}`);
        this.line(this.indent(e.text || '[CLEAN] no corrections'));
        break;
      case 'summary_updated':
        this.line(this.c('90', `  summary updated (${e.tokens} tokens) · ${this.budget()}`));
        break;
      case 'budget_warning':
        this.line(
          this.c('33', `  budget at ${Math.round((e.spent / e.budget) * 100)}%: round ${e.finalRound} is the last`),
        );
        break;
      case 'options_set':
        this.line();
        this.line(this.c('1', `Options (${e.source === 'user' ? 'given' : 'proposed by the workers'}):`));
        for (const o of e.options) this.line(`  ${o.id}: ${o.label}`);
        break;
      case 'options_proposed':
        this.line(`  ${e.worker} proposes: ${e.options.join(' | ') || '(nothing usable)'}`);
        break;
      case 'ballot_recorded':
        this.line();
        this.line(
          `${this.c('1', e.worker)} ${this.c('90', `(ballot${e.valid ? '' : ', INVALID'}${e.retried ? ', asked twice' : ''})`)}`,
        );
        if (!e.valid) this.line(this.c('35', `    ! ${e.invalidReason ?? ''} — recorded as abstaining`));
        for (const v of e.votes) {
          const missing = v.evidence
            .filter((x) => x.status !== 'exists' && x.status !== 'unchecked')
            .map((x) => x.file);
          this.line(
            `    ${v.option}: ${this.c(v.vote === 'accept' ? '32' : v.vote === 'reject' ? '31' : '90', v.vote)} ${v.confidence.toFixed(2)}${missing.length ? this.c('33', ` (cited but not found: ${missing.join(', ')})`) : ''}`,
          );
        }
        break;
      case 'verdict_computed':
        this.line();
        this.line(this.c('1', `Verdicts after round ${e.round}${e.final ? '' : ' (provisional)'}:`));
        for (const r of e.results)
          this.line(`  ${r.option}: ${r.verdict} (weighted acceptance ${Math.round(r.weightedAccept * 100)}%)`);
        this.line(
          `  agreement ${Math.round(e.actualConsensus * 100)}% of ${Math.round(e.consensusThreshold * 100)}% needed${e.decision ? ` · decision ${e.decision}` : ''}`,
        );
        for (const c of e.conflicts) this.line(`  conflict ${c.conflictId}: ${c.severity} ${c.conflictType}`);
        break;
      case 'escalated':
        this.line();
        this.line(this.c('33', `▲ Escalated to the human: ${e.reasons.join('; ')}`));
        break;
      case 'human_resolved':
        this.line(
          this.c(
            '1',
            `Human: ${e.action}${e.option ? ` ${e.option}` : ''}${e.instruction ? ` — ${e.instruction}` : ''}`,
          ),
        );
        break;
      case 'meeting_interrupted':
        this.line(this.c('35', `  interrupted: ${e.detail}`));
        break;
      case 'meeting_closed':
        this.line();
        this.line(this.c('1', `■ Meeting closed: ${e.reason}${e.detail ? ` (${e.detail})` : ''}`));
        break;
      default:
        break;
    }
  }

  finish(summary: RunSummary): void {
    this.line();
    this.line(this.c('1', 'DIGEST'));
    this.line(summary.digest);
    this.line();
    this.line(`Minutes: ${summary.minutesPath}`);
  }
}
