/**
 * TEMPORARY: the shapes of the one "convene from the extension" path (extension/src/convene.ts,
 * branch `lmtool`, over client/src/convene.ts, branch `mirror`), copied from the shared contract
 * so the participant compiles before those branches land. Replaced by imports on merge.
 */
import type * as vscode from 'vscode';
import type { ContextRequest, Digest, MeetingState } from '../../../protocol/src';

/** Once per finished round: who spoke, with which model and stance, a one-line gist; the judge's notes. */
export interface RoundProgress {
  round: number;
  posts: { speaker: string; model?: string; stance?: string; gist: string }[];
  judge?: string;
}

/** What the chat asks the convene path for. */
export interface ConveneInput {
  topic: string;
  mode?: 'roundtable' | 'consensus';
  options?: string[];
  context?: ContextRequest;
  maxRounds?: number;
}

export interface ConveneResult {
  meetingId: string;
  state: MeetingState;
  digest: Digest | undefined;
  outcome: string;
  cut: boolean;
}

export type ConveneFromExtension = (
  input: ConveneInput,
  opts: { token?: vscode.CancellationToken; onRound?: (p: RoundProgress) => void },
) => Promise<ConveneResult>;

/** The one line that says what is wrong with an input, or undefined when it may be convened. */
export type ValidateConveneInput = (input: ConveneInput) => string | undefined;
