/**
 * `roundtable.tools` as meeting config. Kept free of the vscode module (like billingSettings.ts) so
 * it is unit-tested: a hand-edited settings.json with `"roundtable.tools": "yes"` is one line saying
 * what to fix, never a meeting refused by the daemon after the topic was typed.
 */
import type { MeetingConfig } from '@roundtable/protocol';

export function toolsConfig(raw: unknown): Partial<MeetingConfig> {
  if (raw === true) return { tools: true };
  if (raw === false || raw === undefined || raw === null) return {};
  throw new Error(`roundtable.tools must be true or false, got ${JSON.stringify(raw)}.`);
}
