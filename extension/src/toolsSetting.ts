/**
 * The boolean settings that are meeting config (`roundtable.tools`, `roundtable.stopWhenStable`).
 * Kept free of the vscode module (like billingSettings.ts) so it is unit-tested: a hand-edited
 * settings.json with `"roundtable.tools": "yes"` is one line saying what to fix, never a meeting
 * refused by the daemon after the topic was typed.
 */
import type { MeetingConfig } from '@roundtable/protocol';

/** A boolean setting as set, undefined when unset; anything else is one line naming it. */
function booleanSetting(name: string, raw: unknown): boolean | undefined {
  if (raw === true || raw === false) return raw;
  if (raw === undefined || raw === null) return undefined;
  throw new Error(`roundtable.${name} must be true or false, got ${JSON.stringify(raw)}.`);
}

export function toolsConfig(raw: unknown): Partial<MeetingConfig> {
  return booleanSetting('tools', raw) ? { tools: true } : {};
}

/** `roundtable.stopWhenStable`: on by default, so only `false` is sent. */
export function stopWhenStableConfig(raw: unknown): Partial<MeetingConfig> {
  return booleanSetting('stopWhenStable', raw) === false ? { stopWhenStable: false } : {};
}
