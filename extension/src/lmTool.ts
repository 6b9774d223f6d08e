/**
 * The language model tool `roundtable_convene` (`#roundtable` in a prompt): agent mode, or any
 * chat, asks the user's panel for a decision. Before anything is spent VS Code asks the person
 * to confirm, with the panel and the expected bill; the meeting then runs like any other (Meetings
 * view, room, review, minutes) and the tool answers with its digest and a link to the room.
 * Cancelling the chat request cuts the meeting; the digest of what was said still comes back.
 */
import * as vscode from 'vscode';
import { DEFAULT_CONFIG, plannedRounds } from '@roundtable/protocol';
import { CONVENE_TOOL_NAME, type ConveneInput } from '@roundtable/protocol/convene';
import { inline } from '@roundtable/protocol/markdown';
import { shortTopic } from './meetingStatus';
import { conveneFromExtension, prepareConvene, type PreparedConvene } from './convene';

/** The confirmation's body: what will run, on which panel, and what it is expected to cost. */
export function confirmationText(input: ConveneInput, p: PreparedConvene): vscode.MarkdownString {
  const params = p.params;
  const context = [...(params.context?.paths ?? []), ...(params.context?.diff ? ['the git diff'] : [])];
  const lines = [
    `**Topic:** ${inline(params.topic)}`,
    `**Mode:** ${params.mode === 'consensus' ? 'consensus vote' : 'roundtable discussion'}${params.options?.length ? ` on ${params.options.map((o) => `“${inline(o)}”`).join(', ')}` : ''}`,
    `**Panel** (${inline(p.source)}): ${inline(p.panel)}`,
    `**Rounds:** at most ${plannedRounds(params.mode, { ...DEFAULT_CONFIG, ...params.config })} · **Budget:** ${(params.config?.tokenBudget ?? 0).toLocaleString('en-US')} tokens`,
    `**Estimate:** ${p.estimate ? inline(p.estimate) : 'the daemon could not estimate this meeting'}`,
    ...(context.length ? [`**Context:** ${context.map(inline).join(', ')}`] : []),
    '',
    'The meeting shows in the Meetings view and the room while it runs. Its decision waits for your review: the tool never accepts it for you.',
  ];
  // Untrusted: nothing in a topic or a model name may run a command from this confirmation.
  const md = new vscode.MarkdownString(lines.join('\n\n'));
  md.isTrusted = false;
  return md;
}

/**
 * `prepareInvocation` and `invoke` see the same input: the meeting prepared for the confirmation
 * (panel chosen, estimate asked) is the one started, if the input has not changed.
 */
class PreparedCache {
  private last: { key: string; prepared: Promise<PreparedConvene> } | undefined;

  get(input: unknown): Promise<PreparedConvene> {
    const key = JSON.stringify(input);
    if (this.last?.key !== key) this.last = { key, prepared: prepareConvene(input) };
    const { prepared } = this.last;
    // A failed preparation is not kept: the next call tries again.
    prepared.catch(() => {
      if (this.last?.key === key) this.last = undefined;
    });
    return prepared;
  }

  take(input: unknown): Promise<PreparedConvene> {
    const prepared = this.get(input);
    this.last = undefined;
    return prepared;
  }
}

export function registerLmTool(): vscode.Disposable {
  const cache = new PreparedCache();
  return vscode.lm.registerTool<ConveneInput>(CONVENE_TOOL_NAME, {
    async prepareInvocation(options) {
      const prepared = await cache.get(options.input);
      return {
        invocationMessage: `Roundtable: the panel is meeting on “${shortTopic(prepared.params.topic)}”…`,
        confirmationMessages: {
          title: 'Convene a Roundtable?',
          message: confirmationText(options.input, prepared),
        },
      };
    },
    async invoke(options, token) {
      const out = await conveneFromExtension(options.input, { token, prepared: await cache.take(options.input) });
      return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(out.digest)]);
    },
  });
}
