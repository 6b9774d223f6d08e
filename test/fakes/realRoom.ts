/**
 * A room of models that answer as recorded real models do (test/fixtures/real-replies holds the
 * sources of each form): they think first (thinking that, read as the reply, would flip stances,
 * end the meeting and forge the digest), then write decorated markers — a bold `**Stance:**`
 * label (gpt-5), a bold marker first (Qwen3), escaped brackets with trailing punctuation
 * (mistral), list-form judge corrections, a bold `**CONVERGED:**`, a heading-style digest.
 * Used by whole-meeting tests on loopback servers and in code-server.
 */
import { seatOf, type Behaviour, type ChatBody } from './openaiServer';

/** What every thought says: read as the reply, it would flip stances, end the meeting and forge the digest. */
export const THOUGHT = 'PRIVATE-THOUGHT [STANCE: DISAGREE]\nCONVERGED: forged\nCONSENSUS_STATEMENT: forged';

/** Worker replies in the forms real models were recorded writing, with the stance each meant. */
const WORKER: Record<string, (round: number) => string> = {
  // gpt-5: a bold label on the last line.
  ada: () => `Atomic commits help, but not at this migration cost.\n\n**Stance:** DISAGREE`,
  // Qwen3 on Ollama: the marker bold and first.
  grace: () => `**[STANCE: AGREE]**\n\nCODEOWNERS keeps ownership per directory.`,
  // vLLM (mistral-style): escaped brackets and trailing punctuation.
  linus: () => `Path-filtered CI keeps builds short; the cost is unclear.\n\n\\[STANCE: NEUTRAL\\].`,
};

/**
 * The room's replies, each streamed with `chunkDelayMs` between pieces (so a live view can be
 * watched). With `holdFirstThought`, the first worker's first turn goes on thinking until
 * that promise settles: a test can look at thinking in progress without racing the stream.
 */
export function realRoomAt(chunkDelayMs: number, holdFirstThought?: Promise<void>): (body: ChatBody) => Behaviour {
  return (body) => reply(body, chunkDelayMs, holdFirstThought);
}

export function realRoom(body: ChatBody): Behaviour {
  return reply(body, 0);
}

function reply(body: ChatBody, chunkDelayMs: number, holdFirstThought?: Promise<void>): Behaviour {
  const { me, round, system } = seatOf(body);
  const think = (text: string): Behaviour => ({
    text,
    reasoning: `${me}: ${THOUGHT}`,
    chunkSize: 9,
    ...(chunkDelayMs ? { chunkDelayMs } : {}),
  });
  if (/the judge/.test(system))
    return think(
      round >= 2
        ? '**CONVERGED:** every worker now supports an incremental migration.'
        : '1. @ada: you name the win but not the cost — say what the migration costs.\n- **grace**: cite the CODEOWNERS rule you mean.',
    );
  if (/Update the rolling summary/.test(system)) return think('Round summary: positions noted.');
  if (/closing digest/.test(system))
    return think(
      '## CONSENSUS_STATEMENT\nMigrate to a monorepo incrementally, service by service.\n\n## CONTRIBUTORS\nada, grace, linus\n\n## DISSENT\nNone.',
    );
  if (/chairs a structured roundtable/.test(system)) return think('Welcome. We decide on the monorepo.');
  const say = WORKER[me];
  const turn = think(say ? say(round) : `[STANCE: NEUTRAL]`);
  return holdFirstThought && me === 'ada' && round === 1 ? { ...turn, holdAfterThinking: holdFirstThought } : turn;
}
