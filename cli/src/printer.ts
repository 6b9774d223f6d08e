/** Renders the room to a terminal as events arrive: who speaks, stance, round, budget. */
import type { MeetingEvent, MeetingState } from '@roundtable/protocol';
import { budgetSpentOf, formatBill, initialState, plannedRounds, roundLimit } from '@roundtable/protocol';
import { terminalSafe } from '@roundtable/protocol/terminal';
import type { RunSummary } from './summary';
import { contextLines, toolLine } from '@roundtable/protocol/contextMinutes';

/** A copy of a value with every string in it made terminal-safe (events carry model text in many fields). */
function safeDeep<T>(v: T): T {
  if (typeof v === 'string') return terminalSafe(v) as T;
  if (Array.isArray(v)) return v.map((x: unknown) => safeDeep(x)) as T;
  if (v && typeof v === 'object') {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, safeDeep(x)])) as T;
  }
  return v;
}

const STANCE_COLOR: Record<string, string> = {
  AGREE: '32',
  DISAGREE: '31',
  NEUTRAL: '33',
  UNKNOWN: '90',
  PASS: '36',
  TIMEOUT: '35',
};

/** What an event's printer is given: the state after the event (its model text not yet cleaned), and the room's pen. */
interface Printing {
  s: MeetingState;
  /** `text` in the ANSI colour `code` when colour is on. */
  c(code: string, text: string): string;
  line(text?: string): void;
  indent(text: string): string;
  /** The budget figure, named (spoken or billed). */
  budget(): string;
}

type PrinterOf<K extends MeetingEvent['type']> = (e: Extract<MeetingEvent, { type: K }>, p: Printing) => void;

function printBallot(e: Extract<MeetingEvent, { type: 'ballot_recorded' }>, p: Printing): void {
  p.line();
  // A reviewer asked nothing (every finding its own, or settled): its own findings are its accepts, no call was made.
  const asked = e.votes.some((v) => !v.proposed);
  p.line(
    `${p.c('1', e.worker)} ${p.c('90', asked ? `(ballot${e.valid ? '' : ', INVALID'}${e.retried ? ', asked twice' : ''})` : '(its own findings, counted as its accepts; no ballot asked)')}`,
  );
  if (!e.valid) p.line(p.c('35', `    ! ${e.invalidReason ?? ''} — recorded as abstaining`));
  for (const v of e.votes) {
    const missing = v.evidence.filter((x) => x.status !== 'exists' && x.status !== 'unchecked').map((x) => x.file);
    const vote = p.c(v.vote === 'accept' ? '32' : v.vote === 'reject' ? '31' : '90', v.vote);
    p.line(
      `    ${v.option}: ${v.proposed ? `proposed (${vote} ${v.confidence.toFixed(2)})` : `${vote} ${v.confidence.toFixed(2)}`}${missing.length ? p.c('33', ` (cited but not found: ${missing.join(', ')})`) : ''}`,
    );
  }
}

function printVerdict(e: Extract<MeetingEvent, { type: 'verdict_computed' }>, p: Printing): void {
  p.line();
  p.line(p.c('1', `Verdicts after round ${e.round}${e.final ? '' : ' (provisional)'}:`));
  for (const r of e.results)
    p.line(`  ${r.option}: ${r.verdict} (weighted acceptance ${Math.round(r.weightedAccept * 100)}%)`);
  // A review decides no option: each finding has its verdict, and agreement on one option measures nothing.
  if (!p.s.config.review)
    p.line(
      `  agreement ${Math.round(e.actualConsensus * 100)}% of ${Math.round(e.consensusThreshold * 100)}% needed${e.decision ? ` · decision ${e.decision}` : ''}`,
    );
  for (const c of e.conflicts) p.line(`  conflict ${c.conflictId}: ${c.severity} ${c.conflictType}`);
}

/** How each event type is printed; a type not here prints nothing. */
const PRINTERS: { [K in MeetingEvent['type']]?: PrinterOf<K> } = {
  meeting_opened: (e, p) => {
    p.line(p.c('1', `Roundtable · ${e.topic}`));
    // A review's chair and judge make no call (its digest is computed): it lists its reviewers.
    const seats = e.config.review
      ? e.participants.filter((x) => x.role === 'worker').map((x) => ({ ...x, role: 'reviewer' }))
      : e.participants;
    p.line(`  ${seats.map((x) => `${x.name} (${x.role}, ${x.provider}:${x.model})`).join(', ')}`);
    p.line(
      `  up to ${plannedRounds(e.mode, e.config)} rounds · budget ${e.config.tokenBudget.toLocaleString('en-US')} tokens · ${e.config.order} order`,
    );
  },
  tool_called: (e, p) => p.line(`  ${toolLine(e)}`),
  context_attached: (_e, p) => {
    if (p.s.context) for (const l of contextLines(safeDeep(p.s.context))) p.line(`  ${l}`);
  },
  round_started: (e, p) => {
    p.line();
    p.line(p.c('1', `── Round ${e.round} of ${roundLimit(p.s)}${e.final ? ' (final)' : ''} · ${p.budget()} ──`));
  },
  message_posted: (e, p) => {
    p.line();
    p.line(`${p.c('1', e.from)} ${p.c('90', `(${e.role}${e.kind === 'contribution' ? '' : `, ${e.kind}`})`)}`);
    p.line(p.indent(e.text));
  },
  human_posted: (e, p) => {
    p.line();
    p.line(`${p.c('1', e.from)} ${p.c('90', '(human)')}`);
    p.line(p.indent(e.text));
  },
  stance_recorded: (e, p) =>
    p.line(
      `    ${p.c('90', '→')} ${e.participant}: ${p.c(STANCE_COLOR[e.stance] ?? '0', e.stance)}${e.passed ? ' (passes)' : ''}`,
    ),
  turn_failed: (e, p) =>
    p.line(p.c('35', `    ! ${e.participant} ${e.reason === 'timeout' ? 'timed out' : 'failed'}: ${e.detail}`)),
  consensus_evaluated: (e, p) =>
    p.line(`  consensus: ${e.level} (${e.agree} agree, ${e.disagree} disagree, ${e.neutral} neutral)`),
  judge_feedback: (e, p) => {
    p.line();
    p.line(`${p.c('1', 'judge')} ${p.c('90', `(round ${e.round})`)}`);
    p.line(p.indent(e.text || '[CLEAN] no corrections'));
  },
  summary_updated: (e, p) => p.line(p.c('90', `  summary updated (${e.tokens} tokens) · ${p.budget()}`)),
  budget_warning: (e, p) =>
    p.line(p.c('33', `  budget at ${Math.round((e.spent / e.budget) * 100)}%: round ${e.finalRound} is the last`)),
  options_set: (e, p) => {
    p.line();
    p.line(p.c('1', `Options (${e.source === 'user' ? 'given' : 'proposed by the workers'}):`));
    for (const o of e.options) p.line(`  ${o.id}: ${o.label}`);
  },
  options_proposed: (e, p) => p.line(`  ${e.worker} proposes: ${e.options.join(' | ') || '(nothing usable)'}`),
  ballot_recorded: printBallot,
  verdict_computed: printVerdict,
  escalated: (e, p) => {
    p.line();
    p.line(p.c('33', `▲ Escalated to the human: ${e.reasons.join('; ')}`));
  },
  human_resolved: (e, p) =>
    p.line(
      p.c('1', `Human: ${e.action}${e.option ? ` ${e.option}` : ''}${e.instruction ? ` — ${e.instruction}` : ''}`),
    ),
  meeting_interrupted: (e, p) => p.line(p.c('35', `  interrupted: ${e.detail}`)),
  meeting_closed: (e, p) => {
    p.line();
    p.line(p.c('1', `■ Meeting closed: ${e.reason}${e.detail ? ` (${e.detail})` : ''}`));
  },
};

/**
 * Prints the room from the events and states of the one fold its caller holds (a meeting handle's
 * in the daemon, the engine's in this process): it keeps the last state handed, never a fold of its own.
 */
export class RoomPrinter {
  private s: MeetingState = initialState();
  /** Seq of the last event printed: one handed twice prints once. */
  private printed = 0;

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
    // The figure the budget caps, named (spoken by default, billed with --budget-basis billed).
    const spent = budgetSpentOf(this.s);
    const pct = Math.round((spent / this.s.config.tokenBudget) * 100);
    return `${spent.toLocaleString('en-US')}/${this.s.config.tokenBudget.toLocaleString('en-US')} tokens ${terminalSafe(this.s.config.budgetBasis ?? 'spoken')} (${pct}%)`;
  }

  /** One event and the meeting's state after it. */
  event(raw: MeetingEvent, state: MeetingState): void {
    if (raw.seq <= this.printed) return;
    this.printed = raw.seq;
    // Every field of an event may hold model or agent text: cleaned once, here, before any is printed.
    const e = safeDeep(raw);
    this.s = state;
    const print = PRINTERS[e.type] as ((e: MeetingEvent, p: Printing) => void) | undefined;
    print?.(e, {
      s: state,
      c: (code, text) => this.c(code, text),
      line: (text) => this.line(text),
      indent: (text) => this.indent(text),
      budget: () => this.budget(),
    });
  }

  finish(summary: RunSummary): void {
    this.line();
    this.line(this.c('1', 'DIGEST'));
    this.line(terminalSafe(summary.digest));
    this.line();
    // Both figures, named: spoken against the budget and what the calls billed (model names cleaned).
    this.line(`Tokens: ${formatBill(safeDeep(this.s))}`);
    this.line(`Minutes: ${terminalSafe(summary.minutesPath)}`);
  }
}
