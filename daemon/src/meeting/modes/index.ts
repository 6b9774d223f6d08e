/** The meeting modes, by name. A third mode is one new folder and one line here. */
import type { MeetingMode } from '@roundtable/protocol';
import { performConsensus } from './consensus/perform';
import { planConsensus } from './consensus/plan';
import { performRoundtable } from './roundtable/perform';
import { planRoundtable } from './roundtable/plan';
import type { MeetingModeRules } from './types';

export const MODES: Record<MeetingMode, MeetingModeRules> = {
  roundtable: { plan: planRoundtable, perform: performRoundtable },
  consensus: { plan: planConsensus, perform: performConsensus },
};
