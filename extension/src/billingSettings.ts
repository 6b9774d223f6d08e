/**
 * The bill's settings (`roundtable.prices`, `roundtable.budgetBasis`) as meeting config. Kept free
 * of the vscode module so it is checked the same way everywhere: a broken price setting is one
 * line saying where to fix it, never a meeting refused by the daemon after the topic was typed.
 */
import type { MeetingConfig } from '@roundtable/protocol';
import { PricesSchema } from '@roundtable/protocol';

export function billingConfig(raw: { prices?: unknown; budgetBasis?: unknown }): Partial<MeetingConfig> {
  const out: Partial<MeetingConfig> = {};
  if (raw.budgetBasis === 'billed' || raw.budgetBasis === 'spoken') out.budgetBasis = raw.budgetBasis;
  else if (raw.budgetBasis !== undefined && raw.budgetBasis !== '')
    throw new Error(`roundtable.budgetBasis must be "spoken" or "billed", got ${JSON.stringify(raw.budgetBasis)}.`);
  if (raw.prices === undefined || raw.prices === null) return out;
  const r = PricesSchema.safeParse(raw.prices);
  if (!r.success) {
    const issue = r.error.issues[0];
    const where = issue?.path.length ? `.${issue.path.join('.')}` : '';
    throw new Error(
      `roundtable.prices${where} is invalid: ${issue?.message ?? 'invalid'}. Give model → {"input": $, "output": $} per million tokens in the settings.`,
    );
  }
  if (Object.keys(r.data).length > 0) out.prices = r.data;
  return out;
}
