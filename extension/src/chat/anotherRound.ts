/**
 * Another Round, from the chat's button: the review's own "another round" (one final round with
 * the person's instruction, then a new digest to review), asked for here without opening the
 * review. It records the person's request, never an Accept or a Reject.
 */
import * as vscode from 'vscode';
import { digestMarkdown } from '@roundtable/protocol/digestMarkdown';
import type { Lifecycle } from '../lifecycle';

export async function anotherRound(lifecycle: Lifecycle, meetingId: string): Promise<boolean> {
  await lifecycle.follow(meetingId);
  const instruction = await vscode.window.showInputBox({
    title: 'Roundtable: another round',
    prompt: 'What should the workers address in one more round?',
    ignoreFocusOut: true,
    validateInput: (v) => (v.trim() ? undefined : 'Say what the extra round should address'),
  });
  if (!instruction?.trim()) return false;
  const s = lifecycle.state(meetingId);
  // An escalated vote waits for the person's resolution; any other meeting takes a decision on its digest.
  if (s.status === 'awaiting_human')
    await lifecycle.resolve(meetingId, 'another_round', { instruction: instruction.trim() });
  else await lifecycle.decide(meetingId, 'another_round', digestMarkdown(s), instruction.trim());
  return true;
}
