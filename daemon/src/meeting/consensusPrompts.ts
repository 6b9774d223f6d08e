/**
 * What a consensus meeting's workers are shown: the proposal call, the ballot (with the other
 * workers' earlier ballots as evidence) and the retry after an invalid ballot. A review's
 * findings and ballots are reviewPrompts.ts.
 */
import type { ChatMessage, MeetingState, Participant, RoundState } from '@roundtable/protocol';
import { UNCERTAINTY_BELOW } from '@roundtable/protocol';
import { renderBallot } from '@roundtable/protocol/consensusReport';
import { truncateToTokens } from '../providers/tokens';
import { defang, oneLine, wrapPost } from '../providers/envelope';
import { EVIDENCE_RULE, PEER_POST_MAX_TOKENS, assistantName, personaOf, stableHead, wrap } from './promptParts';
import type { PromptOptions } from '../context/render';

export function ballotOf(s: MeetingState, worker: string, b: RoundState['ballots'][string]): string {
  return wrapPost({
    from: worker,
    kind: 'peer',
    seq: b.seq,
    text: truncateToTokens(renderBallot(s, b.votes), PEER_POST_MAX_TOKENS),
  });
}

const BALLOT_FORMAT =
  'Reply with one JSON object and nothing else:\n' +
  '{"votes": [{"option": "<option id>", "vote": "accept" | "reject" | "abstain", "confidence": <0.0 to 1.0>, ' +
  '"rationale": "<why, in one to three sentences>", "evidence": [{"file": "<workspace-relative path>", "section": "<function, heading or lines>", "type": "code" | "doc" | "test" | "config" | "data"}], ' +
  '"assumptions": ["<an assumption your vote rests on>"], "uncertainty": "<what you are unsure of>", "compromise": "<optional: a middle position>"}]}\n' +
  'Vote on every option. Cite files that exist in the workspace; a cited file that does not exist is flagged in the report. ' +
  'Use confidence 1.0 only when you are certain. Name the assumptions your vote rests on. ' +
  `A vote (accept or reject) with confidence below ${UNCERTAINTY_BELOW} must carry an "uncertainty" note saying what you are unsure of. ` +
  '"compromise" is optional: propose one only if a middle position would settle the question.';

export function proposalPrompt(s: MeetingState, me: Participant, o: PromptOptions = {}): ChatMessage[] {
  return [
    {
      role: 'system',
      content: `You are ${me.name}, a worker in a structured consensus meeting.${me.persona ? ` Your perspective: ${personaOf(me)}` : ''}`,
    },
    {
      role: 'user',
      content: `${stableHead(s, o, 'Decision question').join('\n\n')}\n\nPropose up to ${s.config.maxOptions} distinct, concrete options that answer it. Reply with one JSON object: {"options": ["...", "..."]}`,
    },
  ];
}

/** What a ballot may do when the meeting offers the workspace tools: said after the format, the same every round. */
export const TOOLS_ON_BALLOT =
  'You may read the workspace with the read_file tool before voting. Evidence whose "section" gives the lines ' +
  '("lines 12-30") that read_file returned to you is marked verified in the report.';

/**
 * A challenge round's part of a ballot: the other workers' ballots of the round before (under
 * `othersVoted`), this worker's own, and the human's posts, as quoted evidence.
 */
export function challengeParts(s: MeetingState, me: Participant, previous: RoundState, othersVoted: string): string[] {
  const others = Object.entries(previous.ballots)
    .filter(([w]) => w !== me.name)
    .map(([w, b]) => ballotOf(s, w, b));
  const mine = previous.ballots[me.name];
  return [
    `This is challenge round ${previous.round}. ${othersVoted}\n${others.join('\n\n') || '(nobody else voted)'}`,
    ...(mine ? [`Your previous ballot:\n${ballotOf(s, me.name, mine)}`] : []),
    'Weigh their rationales and evidence. Keep or revise your votes; say why in each rationale.',
    ...(previous.humanPosts.length > 0
      ? [`From the human running the meeting:\n${previous.humanPosts.map(wrap).join('\n\n')}`]
      : []),
  ];
}

export function ballotPrompt(
  s: MeetingState,
  me: Participant,
  round: RoundState,
  o: PromptOptions = {},
): ChatMessage[] {
  const previous = s.rounds.find((r) => r.round === round.round - 1);
  // Labels proposed by workers are model text: one line each, defanged, quoted as the meeting's record.
  const options = s.options.map((o) => `${o.id}: ${oneLine(o.label)}`).join('\n');
  const parts = [
    ...stableHead(s, o, 'Decision question'),
    `Options (vote with their ids):\n${wrapPost({ from: assistantName(s), kind: 'system', seq: s.optionsSeq, text: options })}`,
  ];
  if (previous) parts.push(...challengeParts(s, me, previous, 'The other workers voted:'));
  parts.push(BALLOT_FORMAT);
  // Same text every round of the meeting: it stays with the format, not among the round's posts.
  if (s.config.tools) parts.push(TOOLS_ON_BALLOT);
  return [
    {
      role: 'system',
      content: `You are ${me.name}, a worker voting in a structured consensus meeting.${me.persona ? ` Your perspective: ${personaOf(me)}` : ''}\n${EVIDENCE_RULE}`,
    },
    { role: 'user', content: parts.join('\n\n') },
  ];
}

/**
 * The invalid reply goes back to the model that wrote it, as its own turn (no other agent reads
 * it); it is still defanged so it cannot carry a forged header into the conversation. The reason
 * is engine text but quotes the reply's values (`"option" "…" is not one of …`): a quoted value
 * longer than a plain word is elided, since the model can read it in its own turn above.
 */
export function ballotRetryPrompt(first: ChatMessage[], reply: string, reason: string): ChatMessage[] {
  return [
    ...first,
    { role: 'assistant', content: defang(reply.slice(0, 4_000)) },
    {
      role: 'user',
      content: `That ballot is invalid: ${oneLine(reason.replace(/"(?:[^"\\]|\\.)*"/g, (q) => (/^"[A-Za-z_]{1,16}"$/.test(q) ? q : '"…"'))).slice(0, 500)}. Reply again with only the JSON object, in the format above.`,
    },
  ];
}
