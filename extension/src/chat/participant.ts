/**
 * `@roundtable` in the chat view: a question runs a roundtable, `/vote` a consensus vote, and
 * `/again` another round on the last meeting of the conversation. Each round streams as a compact
 * table, the digest is the answer, and buttons open the room or the usual review. It never takes
 * the decision: Accept and Reject stay the person's, in the review panel.
 */
import * as vscode from 'vscode';
import { chosenOption } from '../../../protocol/src/digestMarkdown';
import { oneLine } from '../../../protocol/src/markdown';
import { parseAsk, withoutReferences, type ChatAsk } from './ask';
import type { ConveneFromExtension, ConveneInput, ValidateConveneInput } from './conveneContract';
import { referencesContext } from './references';
import { digestAnswer, roundTable } from './render';

/** The participant's id in package.json's `chatParticipants`. */
export const PARTICIPANT_ID = 'roundtable-dev.roundtable';
/** The command behind the Another Round button: asks `@roundtable /again` in the chat. */
export const ANOTHER_ROUND_COMMAND = 'roundtable.chatAnotherRound';

export interface ChatDeps {
  convene: ConveneFromExtension;
  validate: ValidateConveneInput;
}

/** What a finished answer remembers in the chat history: enough for `/again` and the follow-ups. */
export interface ChatMeta {
  meetingId: string;
  ask: ChatAsk;
  outcome: string;
  confidence?: number;
  cut: boolean;
}

/** The last meeting this participant answered in the conversation (turns are duck-typed: tests build them). */
export function lastMeeting(history: vscode.ChatContext['history']): ChatMeta | undefined {
  for (const turn of [...history].reverse()) {
    const meta = 'result' in turn ? (turn.result.metadata as Partial<ChatMeta> | undefined) : undefined;
    if (meta?.meetingId && meta.ask) return meta as ChatMeta;
  }
  return undefined;
}

/** The meeting a request asks for; `/again` is one more round on the last meeting's question. */
function inputOf(request: vscode.ChatRequest, history: vscode.ChatContext['history']): ConveneInput | string {
  const prompt = withoutReferences(
    request.prompt,
    request.references.flatMap((r) => (r.range ? [r.range] : [])),
  );
  const context = referencesContext(request.references);
  if (typeof context === 'string') return context;
  if (request.command === 'again') {
    const last = lastMeeting(history);
    if (!last) return 'No earlier @roundtable meeting in this chat to continue: ask a question first.';
    // The previous outcome is a model's text: it goes to the panel as a context note, which the
    // daemon envelopes as evidence, never as an instruction.
    const note = `Where the previous meeting (${last.meetingId}) landed: ${last.outcome}${prompt ? `\nThe person adds: ${prompt}` : ''}`;
    return { ...last.ask, maxRounds: 1, context: { ...context, note } };
  }
  const ask = parseAsk(request.command, prompt);
  if (typeof ask === 'string') return ask;
  return { ...ask, ...(context ? { context } : {}) };
}

/** The request handler: validate, convene with a table per round, answer with the digest and buttons. */
export function chatHandler(deps: ChatDeps): vscode.ChatRequestHandler {
  return async (request, chat, stream, token) => {
    const input = inputOf(request, chat.history);
    const refused = typeof input === 'string' ? input : deps.validate(input);
    // One line, and nothing is spent: no meeting starts.
    if (refused !== undefined) return { errorDetails: { message: refused } };
    if (typeof input === 'string') return {};
    stream.progress(input.mode === 'consensus' ? 'Convening the panel for a vote…' : 'Convening the panel…');
    let r;
    try {
      r = await deps.convene(input, { token, onRound: (p) => stream.markdown(roundTable(p)) });
    } catch (e) {
      return { errorDetails: { message: (e as Error).message } };
    }
    const verdict = chosenOption(r.state);
    stream.markdown(
      digestAnswer({ digest: r.digest, outcome: r.outcome, cut: r.cut, ...(verdict ? { verdict } : {}) }),
    );
    stream.button({ command: 'roundtable.openMeeting', title: 'Open Room', arguments: [r.meetingId] });
    stream.button({ command: 'roundtable.reviewDigest', title: 'Review and Accept…', arguments: [r.meetingId] });
    stream.button({ command: ANOTHER_ROUND_COMMAND, title: 'Another Round' });
    const { context: _context, maxRounds: _rounds, ...ask } = input;
    const meta: ChatMeta = {
      meetingId: r.meetingId,
      ask,
      outcome: oneLine(r.digest?.consensusStatement || r.outcome),
      cut: r.cut,
      ...(r.digest ? { confidence: r.digest.confidence } : {}),
    };
    return { metadata: meta };
  };
}

/** Follow-ups: another round when the panel did not all agree, then the natural next questions. */
export const followups: vscode.ChatFollowupProvider = {
  provideFollowups(result) {
    const meta = result.metadata as ChatMeta | undefined;
    if (!meta?.meetingId) return [];
    // A model's outcome becomes a suggested prompt: one line, short, and a new meeting's topic envelopes it.
    const outcome = meta.outcome.length > 160 ? `${meta.outcome.slice(0, 157)}…` : meta.outcome;
    return [
      ...((meta.confidence ?? 0) < 1 || meta.cut
        ? [{ prompt: '', command: 'again', label: 'Another round on the open points' }]
        : []),
      {
        prompt: `What could go wrong with this, and how would we notice early? ${outcome}`,
        label: 'Risks of the outcome',
      },
      { prompt: `What is the smallest first step to carry this out? ${outcome}`, label: 'First step' },
    ];
  },
};

/** Registers `@roundtable` and the Another Round command. */
export function registerChatParticipant(context: vscode.ExtensionContext, deps: ChatDeps): vscode.Disposable[] {
  const participant = vscode.chat.createChatParticipant(PARTICIPANT_ID, chatHandler(deps));
  participant.iconPath = vscode.Uri.joinPath(context.extensionUri, 'media', 'roundtable.svg');
  participant.followupProvider = followups;
  const again = vscode.commands.registerCommand(ANOTHER_ROUND_COMMAND, () =>
    vscode.commands.executeCommand('workbench.action.chat.open', {
      query: '@roundtable /again',
      isPartialQuery: false,
    }),
  );
  return [participant, again];
}
