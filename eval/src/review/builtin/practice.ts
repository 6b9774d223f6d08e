/** Built-in cases on async code and tests, and changes that break two records at once. */
import type { ReviewCase } from '../cases';
import { COMMON, code, defineCase } from './define';

const CONFIRM = code(
  "import { markPaid } from '../db/orders';",
  "import { sendConfirmation } from '../mail/confirmation';",
  '',
  'export async function confirm(orderId: string): Promise<void> {',
  '  const order = await markPaid(orderId);',
  '}',
);

const TAX = code(
  'export function taxCents(amountCents: number, rateBps: number): number {',
  '  return Math.floor((amountCents * rateBps + 5_000) / 10_000);',
  '}',
);

export const PRACTICE_CASES: ReviewCase[] = [
  defineCase({
    id: 'async-floating-email',
    title: 'The confirmation email is sent without await',
    note: 'A floating promise: a failed send is never seen.',
    records: ['async', 'logging'],
    base: { ...COMMON.log, ...COMMON.background, 'src/orders/confirm.ts': CONFIRM },
    change: {
      'src/orders/confirm.ts': CONFIRM.replace(
        '  const order = await markPaid(orderId);',
        '  const order = await markPaid(orderId);\n  sendConfirmation(order);',
      ),
    },
    breaks: [
      { file: 'src/orders/confirm.ts', at: '  sendConfirmation(order);', record: 'async', defect: 'correctness' },
    ],
  }),
  defineCase({
    id: 'async-background-email',
    title: 'The confirmation email runs in the background',
    note: 'Clean, though it is not awaited: the record names runInBackground for this.',
    records: ['async', 'logging'],
    base: { ...COMMON.log, ...COMMON.background, 'src/orders/confirm.ts': CONFIRM },
    change: {
      'src/orders/confirm.ts': CONFIRM.replace(
        "import { sendConfirmation } from '../mail/confirmation';",
        "import { sendConfirmation } from '../mail/confirmation';\nimport { runInBackground } from '../lib/background';",
      ).replace(
        '  const order = await markPaid(orderId);',
        "  const order = await markPaid(orderId);\n  runInBackground(sendConfirmation(order), 'order confirmation email');",
      ),
    },
  }),
  defineCase({
    id: 'tests-jest',
    title: 'A new test written for Jest',
    note: 'A second test framework.',
    records: ['tests'],
    base: { 'src/orders/tax.ts': TAX },
    change: {
      'test/orders/tax.test.ts': code(
        "import { describe, expect, it } from '@jest/globals';",
        "import { taxCents } from '../../src/orders/tax';",
        '',
        "describe('taxCents', () => {",
        "  it('rounds half up to the cent', () => {",
        '    expect(taxCents(1_025, 2_000)).toBe(205);',
        '  });',
        '});',
      ),
    },
    breaks: [
      { file: 'test/orders/tax.test.ts', at: "import { describe, expect, it } from '@jest/globals';", record: 'tests' },
    ],
  }),
  defineCase({
    id: 'tests-node-test',
    title: 'A new test on the Node test runner',
    note: 'Clean: node:test and node:assert/strict, in test/ mirroring src/.',
    records: ['tests'],
    base: { 'src/orders/tax.ts': TAX },
    change: {
      'test/orders/tax.test.ts': code(
        "import assert from 'node:assert/strict';",
        "import { describe, it } from 'node:test';",
        "import { taxCents } from '../../src/orders/tax';",
        '',
        "describe('taxCents', () => {",
        "  it('rounds half up to the cent', () => {",
        '    assert.equal(taxCents(1_025, 2_000), 205);',
        '  });',
        '});',
      ),
    },
  }),
  defineCase({
    id: 'two-refund-print-and-float',
    title: 'A partial refund printed and computed in floats',
    note: 'Breaks two records: the logger and money in cents.',
    records: ['logging', 'money'],
    base: COMMON.log,
    change: {
      'src/billing/partialRefund.ts': code(
        'export function partialRefund(paidCents: number, share: number): number {',
        '  const amount = (paidCents / 100) * share;',
        "  console.log('refunding', amount);",
        '  return Math.round(amount * 100);',
        '}',
      ),
    },
    breaks: [
      { file: 'src/billing/partialRefund.ts', at: '  const amount = (paidCents / 100) * share;', record: 'money' },
      { file: 'src/billing/partialRefund.ts', at: "  console.log('refunding', amount);", record: 'logging' },
    ],
  }),
  defineCase({
    id: 'two-domain-throws-http-error',
    title: 'A payout rule throws the HTTP layer’s error',
    note: 'Breaks two records: the domain imports src/http, and throws for a business rule.',
    records: ['layering', 'errors'],
    base: COMMON.result,
    change: {
      'src/domain/payouts.ts': code(
        "import { HttpError } from '../http/errors';",
        "import { ok, type DomainError, type Result } from './result';",
        '',
        'export function payout(balanceCents: number, amountCents: number): Result<number, DomainError> {',
        "  if (amountCents > balanceCents) throw new HttpError(409, 'insufficient balance');",
        '  return ok(balanceCents - amountCents);',
        '}',
      ),
    },
    breaks: [
      { file: 'src/domain/payouts.ts', at: "import { HttpError } from '../http/errors';", record: 'layering' },
      { file: 'src/domain/payouts.ts', at: "throw new HttpError(409, 'insufficient balance')", record: 'errors' },
    ],
  }),
  defineCase({
    id: 'two-reports-sqlite-from-env',
    title: 'The reports service exports through SQLite at a path from process.env',
    note: 'Breaks two records, each in a file its scope does not name (services/*/db/**, src/config/**).',
    records: ['postgres', 'config'],
    base: COMMON.config,
    change: {
      'services/reports/export.ts': code(
        "import Database from 'better-sqlite3';",
        '',
        "const db = new Database(process.env.REPORTS_DB_PATH ?? '/var/lib/reports/export.db');",
        '',
        'export function saveRow(month: string, totalCents: number): void {',
        "  db.prepare('INSERT INTO monthly (month, total_cents) VALUES (?, ?)').run(month, totalCents);",
        '}',
      ),
    },
    breaks: [
      {
        file: 'services/reports/export.ts',
        at: "import Database from 'better-sqlite3';\n\nconst db = new Database(",
        record: 'postgres',
      },
      { file: 'services/reports/export.ts', at: 'process.env.REPORTS_DB_PATH', record: 'config' },
    ],
  }),
];
