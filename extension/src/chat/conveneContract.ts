/**
 * TEMPORARY: the shapes of the one "convene from the extension" path (extension/src/convene.ts,
 * branch `lmtool`, over client/src/convene.ts, branch `mirror`), so the participant compiles
 * before those branches land. Replaced by imports from '../convene' on merge.
 */
import type * as vscode from 'vscode';
import type { MeetingMode, MeetingState } from '../../../protocol/src';

/** Once per finished round: who spoke, with which model and stance, a one-line gist; the judge's notes. */
export interface RoundProgress {
  round: number;
  posts: { speaker: string; model?: string; stance?: string; gist: string }[];
  judge?: string;
}

/** What a caller asks for. `context` lists workspace paths; the item `"diff"` is the current git diff. */
export interface ConveneInput {
  topic: string;
  mode?: MeetingMode;
  options?: string[];
  context?: string[];
  maxRounds?: number;
}

/** How a convened meeting ended, with its digest as Markdown (already escaped). */
export interface ConveneOutcome {
  meetingId: string;
  state: MeetingState;
  digest: string;
  outcome: string;
  cut: boolean;
}

export type ConveneFromExtension = (
  input: unknown,
  opts?: { token?: vscode.CancellationToken; onRound?: (p: RoundProgress) => void },
) => Promise<ConveneOutcome>;

/** Throws the one line that says what is wrong with an input (empty topic, one option, a path outside the workspace). */
export type ValidateConveneInput = (input: unknown) => unknown;
