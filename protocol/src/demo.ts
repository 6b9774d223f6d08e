/**
 * Whether a meeting's replies were scripted, and whether the script was written for another
 * question: one rule for the engine (the digest's `demo`), the CLI, the minutes and the webview.
 */
import { isRecord } from './schema';

/**
 * The one topic the embedded demo script (examples/demo-script.json) answers: its replies are
 * canned and about this, whatever else is asked, so a demo always runs on this topic.
 */
export const DEMO_TOPIC = 'Should we adopt a monorepo for our three services?';

/** Said wherever canned replies meet another topic: the CLI, the minutes, the digest. */
export const CANNED_NOTE = 'Scripted demo: canned replies that ignore the topic';

/** True when every seat is scripted: the replies are the demo's, not a model's answer. */
export function isScriptedPanel(participants: readonly { provider: string }[]): boolean {
  return participants.length > 0 && participants.every((p) => p.provider === 'scripted');
}

/**
 * True when a meeting's scripted replies were written for another question: the panel has a
 * scripted participant and the script logged with the meeting names a topic that is not the
 * meeting's. Such replies are never presented as an answer.
 */
export function ignoresTopic(s: {
  topic: string;
  participants: readonly { provider: string }[];
  providers?: { script?: unknown };
}): boolean {
  if (!s.participants.some((p) => p.provider === 'scripted')) return false;
  const script = s.providers?.script;
  const topic = isRecord(script) ? script.topic : undefined;
  return typeof topic === 'string' && topic.trim() !== s.topic.trim();
}
