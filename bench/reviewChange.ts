/**
 * The change the review bench reads: a temporary git repository whose `main` holds an orders
 * service on Postgres and five decision records (three accepted, one superseded, one rejected),
 * and a branch `feature` that adds about 300 lines over five files — among them a MySQL pool that
 * the accepted record 0001 ("Postgres for every service") forbids, and a status update that
 * forgets its `await`. Deterministic: the same bytes every run.
 */
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { gitIn } from '../test/fakes/workspace';

const record = (status: string, date: string, title: string, body: string, scope?: string): string =>
  `---\nstatus: ${status}\ndate: ${date}\n${scope ? `scope:\n  - "${scope}"\n` : ''}---\n\n# ${title}\n\n## Context and Problem Statement\n\n${body}\n\n## Decision Outcome\n\nChosen option: as the title says, for every service.\n`;

export const DECISIONS: Record<string, string> = {
  'docs/decisions/0001-postgres-for-every-service.md': record(
    'accepted',
    '2025-01-10',
    'Use Postgres for every service',
    'Services kept their own databases (MySQL, SQLite, Postgres); backups, migrations and on-call differed for each. No MySQL, no SQLite in services: one engine, one migration tool (node-pg-migrate), one backup policy.',
    'src/**/db/**',
  ),
  'docs/decisions/0002-errors-as-values.md': record(
    'accepted',
    '2025-02-03',
    'Return errors as values in the domain layer',
    'Thrown exceptions crossed layers unannounced. Domain functions return `Result<T, DomainError>`; only the HTTP layer maps them to status codes; nothing in src/orders throws for a business rule.',
  ),
  'docs/decisions/0003-money-in-minor-units.md': record(
    'accepted',
    '2025-03-15',
    'Keep money in integer minor units',
    'Floating-point totals drifted by a cent on refunds. Amounts are integers of minor units (cents) with an ISO 4217 currency beside them; never a float.',
  ),
  'docs/decisions/0004-memcached-sessions.md':
    '# Cache sessions in Memcached\n\n* Status: superseded by [ADR-0006](0006-redis-sessions.md)\n* Date: 2023-01-01\n\nMemcached for sessions.\n',
  'docs/decisions/0005-graphql-api.md':
    '# 5. Expose a GraphQL API\n\nDate: 2024-07-01\n\n## Status\n\nRejected\n\n## Context\n\nREST is enough for three clients.\n',
};

export const BASE_FILES: Record<string, string> = {
  'src/orders/db/pool.ts':
    "import { Pool } from 'pg';\n\nexport const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 10 });\n",
  'src/orders/result.ts':
    'export type Result<T, E> = { ok: true; value: T } | { ok: false; error: E };\nexport const ok = <T>(value: T) => ({ ok: true as const, value });\nexport const err = <E>(error: E) => ({ ok: false as const, error });\n',
  'src/orders/types.ts':
    "export type OrderStatus = 'new' | 'paid' | 'shipped' | 'cancelled';\nexport interface Order { id: string; customerId: string; status: OrderStatus; totalCents: number; currency: string }\n",
};

/** `n` blocks of code in the shape real ones have (a query, a mapping, a guard), the i-th from `block(i)`. */
const repeat = (n: number, block: (i: number) => string[]): string =>
  Array.from({ length: n }, (_, i) => [...block(i), ''].join('\n')).join('\n');

const repositoryFn = (i: number) => [
  `export async function findOrdersByStatus${i}(status: OrderStatus, limit = ${20 + i}): Promise<Order[]> {`,
  `  const [rows] = await mysqlPool.query('SELECT id, customer_id, status, total_cents, currency FROM orders WHERE status = ? LIMIT ?', [status, limit]);`,
  '  return (rows as OrderRow[]).map(toOrder);',
  '}',
];
const serviceFn = (i: number) => [
  `export async function applyDiscount${i}(order: Order, percent: number): Promise<Result<Order, DomainError>> {`,
  "  if (percent < 0 || percent > 50) return err({ kind: 'invalid', message: 'discount out of range' });",
  '  const totalCents = Math.round(order.totalCents * (1 - percent / 100));',
  '  return ok({ ...order, totalCents });',
  '}',
];
const routeFn = (i: number) => [
  `router.get('/orders/status${i}/:status', async (req, res) => {`,
  `  const orders = await findOrdersByStatus${i}(req.params.status as OrderStatus);`,
  '  res.json(orders.map((o) => ({ ...o, total: o.totalCents / 100 })));',
  '});',
];
const testCase = (i: number) => [
  `test('applyDiscount${i} keeps cents whole', () => {`,
  `  const r = applyDiscount${i}({ id: 'o${i}', customerId: 'c', status: 'new', totalCents: 999, currency: 'EUR' }, 10);`,
  '  assert.ok(r.ok && Number.isInteger(r.value.totalCents));',
  '});',
];

/** The change: new files and edits, about 300 lines in all. */
export const CHANGE: Record<string, string> = {
  'src/orders/db/mysqlPool.ts': [
    "import mysql from 'mysql2/promise';",
    '',
    '// Orders move to the MySQL cluster the billing team already runs.',
    'export const mysqlPool = mysql.createPool({ uri: process.env.ORDERS_MYSQL_URL, connectionLimit: 10 });',
    '',
  ].join('\n'),
  'src/orders/repository.ts': [
    "import { mysqlPool } from './db/mysqlPool';",
    "import type { Order, OrderStatus } from './types';",
    '',
    'interface OrderRow { id: string; customer_id: string; status: OrderStatus; total_cents: number; currency: string }',
    '',
    'const toOrder = (r: OrderRow): Order => ({ id: r.id, customerId: r.customer_id, status: r.status, totalCents: r.total_cents, currency: r.currency });',
    '',
    'export async function setStatus(id: string, status: OrderStatus): Promise<void> {',
    "  mysqlPool.query('UPDATE orders SET status = ? WHERE id = ?', [status, id]);",
    '}',
    '',
    repeat(18, repositoryFn),
  ].join('\n'),
  'src/orders/service.ts': [
    "import { err, ok, type Result } from './result';",
    "import type { Order } from './types';",
    '',
    "export type DomainError = { kind: 'invalid' | 'missing'; message: string };",
    '',
    repeat(14, serviceFn),
  ].join('\n'),
  'src/orders/routes.ts': [
    "import { Router } from 'express';",
    "import { findOrdersByStatus0, findOrdersByStatus1 } from './repository';",
    "import type { OrderStatus } from './types';",
    '',
    'export const router = Router();',
    '',
    repeat(12, routeFn),
  ].join('\n'),
  'test/orders/service.test.ts': [
    "import assert from 'node:assert/strict';",
    "import { test } from 'node:test';",
    "import { applyDiscount0 } from '../../src/orders/service';",
    '',
    repeat(8, testCase),
  ].join('\n'),
};

async function writeAll(root: string, files: Record<string, string>): Promise<void> {
  for (const [rel, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(root, rel)), { recursive: true });
    await writeFile(path.join(root, rel), text);
  }
}

export interface ReviewRepo {
  root: string;
  /** Lines the change adds (from git's own count). */
  addedLines: number;
  files: number;
  /** `git diff main...feature`: what a naive reviewer is handed whole. */
  diff: string;
}

/** The repository, on branch `feature` with the change committed; `main` is the base. */
export async function reviewRepo(): Promise<ReviewRepo> {
  const root = path.join(await mkdtemp(path.join(tmpdir(), 'rt-bench-review-')), 'repo');
  await writeAll(root, { ...DECISIONS, ...BASE_FILES });
  gitIn(root, 'init', '-q', '-b', 'main');
  gitIn(root, 'add', '-A');
  gitIn(root, 'commit', '-qm', 'orders on postgres');
  gitIn(root, 'checkout', '-qb', 'feature');
  await writeAll(root, CHANGE);
  gitIn(root, 'add', '-A');
  gitIn(root, 'commit', '-qm', 'orders: repository, service, routes');
  const stat = gitIn(root, 'diff', '--numstat', 'main...feature').toString();
  const rows = stat.trim().split('\n');
  const addedLines = rows.reduce((n, l) => n + Number(l.split('\t')[0] ?? 0), 0);
  return { root, addedLines, files: rows.length, diff: gitIn(root, 'diff', 'main...feature').toString() };
}
