/**
 * The one interface every meeting mode implements, and what the runner lends a mode to perform
 * its steps. A new mode is one new folder under modes/ registered in modes/index.ts.
 */
import type { CallPurpose, EventBody, MeetingState, Participant, ChatMessage } from '@roundtable/protocol';
import type { JsonReply } from '../../providers/types';
import type { CallOutcome } from '../modelCall';
import type { EngineDeps } from '../ports';
import type { ModeStep, Step } from '../steps';

export interface CallRequest {
  participant: Participant;
  purpose: CallPurpose;
  round: number;
  messages: ChatMessage[];
  /** The reply cap, enforced on the text whatever the server does. */
  cap: number;
  /** How many calls made together share what is left of the budget (parallel turns). */
  share?: number;
  json?: JsonReply;
  /** Defaults to the meeting's turn timeout. */
  timeoutMs?: number;
  /** Defaults to the meeting's signal (aborted by a cut). */
  signal?: AbortSignal;
}

/** What a mode may do while performing a step; implemented by the runner. */
export interface StepContext {
  readonly state: MeetingState;
  readonly deps: EngineDeps;
  /** True once no new work may be recorded (a cut, the budget, a shutdown). */
  readonly halted: boolean;
  emit(body: EventBody): Promise<void>;
  /** A model call: planned within the budget, its reply capped, its usage logged. */
  call(req: CallRequest): Promise<CallOutcome>;
  /** Records a failed call: the one place `turn_failed` is emitted. */
  failTurn(round: number, participant: string, outcome: Extract<CallOutcome, { ok: false }>): Promise<void>;
  /** Fits text about to be spoken into what is left of the budget; `undefined` when nothing is. */
  fit(text: string): { text: string; tokens: number } | undefined;
  /** Applies the budget rules after something was spoken (announce the final round, or cut). */
  checkBudget(): Promise<void>;
  participant(name: string): Participant | undefined;
  assistant(): Participant;
}

export interface MeetingModeRules {
  /** The next step of this mode, once the briefing is in and no close is pending. */
  plan(s: MeetingState): Step;
  /** Performs one of this mode's own steps. */
  perform(step: ModeStep, run: StepContext): Promise<void>;
}
