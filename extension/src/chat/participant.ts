/**
 * `@roundtable` in the chat view: a question runs a roundtable and `/vote` a consensus vote, both
 * through the one convene path. Each finished round streams as a compact table, the digest report
 * is the answer, and buttons open the room, the usual review, or another round. It never takes
 * the decision: Accept and Reject stay the person's, in the review panel.
 */
import * as vscode from 'vscode';
import { parseAsk, withoutReferences } from './ask';
import type { conveneFromExtension, validateConveneInput } from '../convene';
import { referencePaths } from './references';
import { roundTable } from './render';

/** The participant's id in package.json's `chatParticipants`. */
export const PARTICIPANT_ID = 'roundtable-dev.roundtable';
/** The command behind the Another Round button (registered with the review's another-round path). */
export const ANOTHER_ROUND_COMMAND = 'roundtable.anotherRound';

/** The one convene path (injected, so the handler is the same in the extension and its tests). */
export interface ChatDeps {
  convene: typeof conveneFromExtension;
  validate: typeof validateConveneInput;
}

/** What an answer remembers in the chat history, for the follow-ups. */
export interface ChatMeta {
  meetingId: string;
  topic: string;
  outcome: string;
  confidence?: number;
  cut: boolean;
}

const refuse = (e: unknown): vscode.ChatResult => ({
  errorDetails: { message: e instanceof Error ? e.message : String(e) },
});

/** The meeting the request asks for, checked by the convene path: an input, or the one line refusing it. */
function inputOf(request: vscode.ChatRequest, deps: ChatDeps): object | string {
  const ranges = request.references.flatMap((r) => (r.range ? [r.range] : []));
  const ask = parseAsk(request.command, withoutReferences(request.prompt, ranges));
  if (typeof ask === 'string') return ask;
  const paths = referencePaths(request.references);
  const input = { ...ask, ...(paths.length ? { context: paths } : {}) };
  try {
    deps.validate(input);
  } catch (e) {
    return (e as Error).message;
  }
  return input;
}

/** The answer: the digest report, with its one command link (open the room) allowed, then the buttons. */
function answer(stream: vscode.ChatResponseStream, meetingId: string, digest: string): void {
  const md = new vscode.MarkdownString(digest);
  md.isTrusted = { enabledCommands: ['roundtable.openMeeting'] };
  stream.markdown(md);
  stream.button({ command: 'roundtable.openMeeting', title: 'Open Room', arguments: [meetingId] });
  // The usual review panel: the person accepts or rejects there, never this participant.
  stream.button({ command: 'roundtable.reviewDigest', title: 'Review and Accept…', arguments: [meetingId] });
  stream.button({ command: ANOTHER_ROUND_COMMAND, title: 'Another Round', arguments: [meetingId] });
}

/** The request handler: refuse bad input with one line (nothing spent), convene with a table per round, answer. */
export function chatHandler(deps: ChatDeps): vscode.ChatRequestHandler {
  return async (request, _chat, stream, token) => {
    const input = inputOf(request, deps);
    if (typeof input === 'string') return refuse(input);
    stream.progress(request.command === 'vote' ? 'Convening the panel for a vote…' : 'Convening the panel…');
    try {
      const r = await deps.convene(input, { token, onRound: (p) => stream.markdown(roundTable(p)) });
      answer(stream, r.meetingId, r.digest);
      const d = r.state.digest?.digest;
      const meta: ChatMeta = {
        meetingId: r.meetingId,
        topic: r.state.topic,
        outcome: r.outcome,
        cut: r.cut,
        ...(d ? { confidence: d.confidence } : {}),
      };
      return { metadata: meta };
    } catch (e) {
      // Cancelled before the meeting started: nothing ran, nothing to answer.
      if (e instanceof vscode.CancellationError) return {};
      return refuse(e);
    }
  };
}

/** A model's outcome inside a suggested prompt: one line, short (a new meeting's topic envelopes it). */
const short = (text: string): string => {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 160 ? `${line.slice(0, 159)}…` : line;
};

/** Follow-ups: the natural next questions on the outcome, and a vote when the room did not all agree. */
export const followups: vscode.ChatFollowupProvider = {
  provideFollowups(result) {
    const meta = result.metadata as Partial<ChatMeta> | undefined;
    if (!meta?.meetingId || !meta.outcome) return [];
    const outcome = short(meta.outcome);
    return [
      { prompt: `What could go wrong with this, and how would we notice early? ${outcome}`, label: 'Risks' },
      { prompt: `What is the smallest first step to carry this out? ${outcome}`, label: 'First step' },
      ...((meta.confidence ?? 0) < 1 && meta.topic
        ? [{ prompt: short(meta.topic), command: 'vote', label: 'Put it to a vote' }]
        : []),
    ];
  },
};

/** Registers `@roundtable`. */
export function registerChatParticipant(context: vscode.ExtensionContext, deps: ChatDeps): vscode.Disposable {
  const participant = vscode.chat.createChatParticipant(PARTICIPANT_ID, chatHandler(deps));
  participant.iconPath = vscode.Uri.joinPath(context.extensionUri, 'media', 'roundtable.svg');
  participant.followupProvider = followups;
  return participant;
}
