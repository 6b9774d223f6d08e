/** Built-in cases on error handling, money and time zones. */
import type { ReviewCase } from '../cases';
import { COMMON, code, defineCase } from './define';

const REFUNDS = code(
  "import { err, ok, type DomainError, type Result } from './result';",
  '',
  'export interface Payment { id: string; amountCents: number; refundedCents: number }',
  '',
  'export function refund(p: Payment, amountCents: number): Result<Payment, DomainError> {',
  "  if (amountCents <= 0) return err({ kind: 'invalid', message: 'nothing to refund' });",
  '  return ok({ ...p, refundedCents: p.refundedCents + amountCents });',
  '}',
);

const SYNC_JOB = code(
  "import { log } from '../lib/log';",
  "import { fetchInvoices, saveInvoice } from '../billing/store';",
  '',
  'export async function syncInvoices(since: Date): Promise<number> {',
  '  const invoices = await fetchInvoices(since);',
  '  for (const invoice of invoices) await saveInvoice(invoice);',
  "  log.info({ count: invoices.length }, 'invoices synced');",
  '  return invoices.length;',
  '}',
);

const CUTOFF_BASE = code(
  '/** Orders paid before 15:00 UTC ship the same day. */',
  'export const CUTOFF_HOUR_UTC = 15;',
);

/** The cut-off with a rule that reads the hour with `read` (`getHours`, `getUTCHours`). */
const cutoff = (read: string) =>
  `${CUTOFF_BASE}\nexport function shipsToday(paidAt: Date): boolean {\n  return paidAt.${read}() < CUTOFF_HOUR_UTC;\n}\n`;

export const RULES_CASES: ReviewCase[] = [
  defineCase({
    id: 'err-throw-in-domain',
    title: 'A refund rule throws',
    note: 'The domain throws for a business rule instead of returning an error.',
    records: ['errors', 'layering'],
    base: { ...COMMON.result, 'src/domain/refunds.ts': REFUNDS },
    change: {
      'src/domain/refunds.ts': REFUNDS.replace(
        '  return ok({ ...p, refundedCents: p.refundedCents + amountCents });',
        "  if (p.refundedCents + amountCents > p.amountCents) throw new Error('refund exceeds the payment');\n  return ok({ ...p, refundedCents: p.refundedCents + amountCents });",
      ),
    },
    breaks: [{ file: 'src/domain/refunds.ts', at: "throw new Error('refund exceeds the payment')", record: 'errors' }],
  }),
  defineCase({
    id: 'err-swallowed',
    title: 'The invoice sync ignores a failed save',
    note: 'An empty catch block: the error is swallowed.',
    records: ['errors', 'logging'],
    base: { ...COMMON.log, 'src/jobs/syncInvoices.ts': SYNC_JOB },
    change: {
      'src/jobs/syncInvoices.ts': SYNC_JOB.replace(
        '  for (const invoice of invoices) await saveInvoice(invoice);',
        '  for (const invoice of invoices) {\n    try {\n      await saveInvoice(invoice);\n    } catch {\n      // a duplicate, probably\n    }\n  }',
      ),
    },
    breaks: [
      {
        file: 'src/jobs/syncInvoices.ts',
        at: '    } catch {\n      // a duplicate, probably\n    }',
        record: 'errors',
        defect: 'correctness',
      },
    ],
  }),
  defineCase({
    id: 'err-http-maps-result',
    title: 'The refunds route turns an error into a 422',
    note: 'Clean, though it throws: the record lets src/http throw HttpError.',
    records: ['errors', 'layering'],
    base: { ...COMMON.result, 'src/domain/refunds.ts': REFUNDS },
    change: {
      'src/http/refunds.ts': code(
        "import { Router } from 'express';",
        "import { refund } from '../domain/refunds';",
        "import { HttpError } from './errors';",
        "import { paymentsRepo } from '../db/payments';",
        '',
        'export const router = Router();',
        '',
        "router.post('/v1/payments/:id/refunds', async (req, res) => {",
        '  const payment = await paymentsRepo.find(req.params.id);',
        "  if (!payment) throw new HttpError(404, 'no such payment');",
        '  const r = refund(payment, Number(req.body.amountCents));',
        '  if (!r.ok) throw new HttpError(422, r.error.message);',
        '  await paymentsRepo.save(r.value);',
        '  res.status(201).json(r.value);',
        '});',
      ),
    },
  }),
  defineCase({
    id: 'money-float-total',
    title: 'The order total adds VAT in floating point',
    note: 'A float amount, rounded with toFixed.',
    records: ['money'],
    base: {
      'src/orders/total.ts': code(
        'export interface Line { unitCents: number; quantity: number }',
        '',
        'export function subtotalCents(lines: Line[]): number {',
        '  return lines.reduce((sum, l) => sum + l.unitCents * l.quantity, 0);',
        '}',
      ),
    },
    change: {
      'src/orders/total.ts': code(
        'export interface Line { unitCents: number; quantity: number }',
        '',
        'export function subtotalCents(lines: Line[]): number {',
        '  return lines.reduce((sum, l) => sum + l.unitCents * l.quantity, 0);',
        '}',
        '',
        'export function totalWithVat(lines: Line[], vatRate = 0.2): number {',
        '  const euros = subtotalCents(lines) / 100;',
        '  return Number((euros * (1 + vatRate)).toFixed(2));',
        '}',
      ),
    },
    breaks: [
      {
        file: 'src/orders/total.ts',
        at: '  const euros = subtotalCents(lines) / 100;\n  return Number((euros * (1 + vatRate)).toFixed(2));',
        record: 'money',
      },
    ],
  }),
  defineCase({
    id: 'money-display-format',
    title: 'Prices are formatted for the shop page',
    note: 'Clean, though it divides by 100: the record lets src/ui format amounts for people.',
    records: ['money'],
    change: {
      'src/ui/formatMoney.ts': code(
        'export function formatMoney(cents: number, currency: string, locale: string): string {',
        '  return new Intl.NumberFormat(locale, { style: "currency", currency }).format(cents / 100);',
        '}',
      ),
    },
  }),
  defineCase({
    id: 'money-integer-tax',
    title: 'Tax computed in integer cents',
    note: 'Clean: a rate in basis points and a rounding rule written in integers.',
    records: ['money'],
    change: {
      'src/orders/tax.ts': code(
        '/** Tax on an amount, half-up to the cent, from a rate in basis points (2000 = 20%). */',
        'export function taxCents(amountCents: number, rateBps: number): number {',
        '  return Math.floor((amountCents * rateBps + 5_000) / 10_000);',
        '}',
      ),
    },
  }),
  defineCase({
    id: 'time-local-cutoff',
    title: 'The same-day cut-off reads the server’s local hour',
    note: 'A local-time read on the server.',
    records: ['time'],
    base: { 'src/shipping/cutoff.ts': CUTOFF_BASE },
    change: {
      'src/shipping/cutoff.ts': cutoff('getHours'),
    },
    breaks: [{ file: 'src/shipping/cutoff.ts', at: '  return paidAt.getHours() < CUTOFF_HOUR_UTC;', record: 'time' }],
  }),
  defineCase({
    id: 'time-user-zone-display',
    title: 'Delivery dates shown in the customer’s time zone',
    note: 'Clean, though it is not UTC: display code in src/ui with an explicit timeZone.',
    records: ['time'],
    change: {
      'src/ui/dates.ts': code(
        'export function deliveryDate(at: Date, user: { locale: string; timeZone: string }): string {',
        "  return new Intl.DateTimeFormat(user.locale, { dateStyle: 'medium', timeZone: user.timeZone }).format(at);",
        '}',
      ),
    },
  }),
  defineCase({
    id: 'time-utc-cutoff',
    title: 'The same-day cut-off in UTC',
    note: 'Clean: the governed rule, kept.',
    records: ['time'],
    base: { 'src/shipping/cutoff.ts': CUTOFF_BASE },
    change: {
      'src/shipping/cutoff.ts': cutoff('getUTCHours'),
    },
  }),
];
