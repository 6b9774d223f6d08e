/** The meeting modes, by name. A third mode is one new folder and one line here. */
import type { MeetingMode } from '../../../../protocol/src';
import { performConsensus } from './consensus/perform';
import { planConsensus } from './consensus/plan';
import { performRoundtable } from './roundtable/perform';
import { planRoundtable } from './roundtable/plan';
import type { MeetingModeRules } from './types';

export const MODES: Record<MeetingMode, MeetingModeRules> = {
  roundtable: {
    plan: planRoundtable,
    perform: (step, run) =>
      step.kind === 'turns' ||
      step.kind === 'stance' ||
      step.kind === 'consensus' ||
      step.kind === 'judge' ||
      step.kind === 'summary'
        ? performRoundtable(step, run)
        : Promise.reject(new Error(`${step.kind} is not a roundtable step`)),
  },
  consensus: {
    plan: planConsensus,
    perform: (step, run) =>
      step.kind === 'propose' ||
      step.kind === 'set_options' ||
      step.kind === 'ballots' ||
      step.kind === 'verdict' ||
      step.kind === 'escalate'
        ? performConsensus(step, run)
        : Promise.reject(new Error(`${step.kind} is not a consensus step`)),
  },
};
