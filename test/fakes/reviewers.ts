/**
 * Reviewers on the loopback OpenAI-compatible server, as models answer a review meeting: asked
 * for findings (the prompt's `{"findings": [` format), each replies with its own as JSON; asked
 * for a ballot (the `{"votes": [` format), a vote on every
 * finding put to it (the ballot's option ids read from the prompt, as a model reads them), and
 * anything else (the assistant's briefing or digest) a consensus statement.
 */
import type { Finding } from '@roundtable/protocol';
import { lastUserMessage, seatOf, type Behaviour, type ChatBody } from './openaiServer';

export interface ReviewerScript {
  /** The findings `me` (the seat's name) proposes. */
  findings: (me: string) => Omit<Finding, 'proposedBy' | 'refuted'>[];
  /**
   * How `me` votes on the finding shown as `label`, the workspace files it cites and why (default:
   * accept at 0.9 — the finding holds — citing nothing, "`me`: accept — read the diff lines it quotes").
   */
  vote?: (
    me: string,
    label: string,
  ) => { vote: 'accept' | 'reject' | 'abstain'; confidence: number; evidence?: string[]; rationale?: string };
  /** Added to every reply (e.g. a pace, or `chunkSize`). */
  extra?: Behaviour;
}

/**
 * The options of a ballot prompt, each with its text up to the next: `O1: …` lines quoted in the
 * envelope (`| O1: src/db.ts lines 1-3, …` then `| claim: …`), as the consensus prompts list them.
 */
export function ballotOptions(prompt: string): { id: string; label: string }[] {
  const out: { id: string; label: string }[] = [];
  for (const line of prompt.split('\n')) {
    const body = line.replace(/^\| ?/, '');
    const head = /^([A-Z]\d+): (.*)$/.exec(body);
    if (head) out.push({ id: head[1] ?? '', label: head[2] ?? '' });
    else if (out.length && line.startsWith('|')) out[out.length - 1]!.label += `\n${body}`;
  }
  return out;
}

export function reviewerResponder(script: ReviewerScript): (body: ChatBody) => Behaviour {
  return (body) => {
    const { me } = seatOf(body);
    const user = lastUserMessage(body);
    const reply = (text: string): Behaviour => ({ ...script.extra, text });
    // A ballot is what the prompt asks for: a reply in the votes format.
    if (user.includes('{"votes": [')) {
      const votes = ballotOptions(user).map((o) => {
        const {
          evidence = [],
          rationale,
          ...v
        } = script.vote?.(me, o.label) ?? {
          vote: 'accept' as const,
          confidence: 0.9,
        };
        return {
          option: o.id,
          ...v,
          rationale: rationale ?? `${me}: ${v.vote} — read the diff lines it quotes`,
          evidence: evidence.map((file) => ({ file })),
        };
      });
      return reply(JSON.stringify({ votes }));
    }
    if (user.includes('{"findings": [')) return reply(JSON.stringify({ findings: script.findings(me) }));
    return reply('CONSENSUS_STATEMENT: the panel reviewed the change');
  };
}
