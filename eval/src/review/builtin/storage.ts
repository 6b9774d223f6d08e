/** Built-in cases on the database engine, the layers, the logger and the HTTP client. */
import type { ReviewCase } from '../cases';
import { COMMON, code, defineCase } from './define';

const ORDERS_POOL = {
  'services/orders/db/pool.ts': code(
    "import { Pool } from 'pg';",
    "import { config } from '../config';",
    '',
    'export const pool = new Pool({ connectionString: config.DATABASE_URL, max: 10 });',
  ),
  'services/orders/db/orders.ts': code(
    "import { pool } from './pool';",
    '',
    'export async function findOrder(id: string) {',
    "  const { rows } = await pool.query('SELECT id, status, total_cents FROM orders WHERE id = $1', [id]);",
    '  return rows[0];',
    '}',
  ),
};

const DOMAIN_ORDERS = code(
  "import { err, ok, type DomainError, type Result } from './result';",
  '',
  "export type OrderStatus = 'new' | 'paid' | 'shipped' | 'cancelled';",
  'export interface Order { id: string; status: OrderStatus; totalCents: number; currency: string }',
  '',
  'export function cancel(order: Order): Result<Order, DomainError> {',
  "  if (order.status === 'shipped') return err({ kind: 'conflict', message: 'already shipped' });",
  "  return ok({ ...order, status: 'cancelled' });",
  '}',
);

const INVOICE = code(
  "import { log } from '../lib/log';",
  '',
  'export interface Invoice { id: string; customerId: string; totalCents: number; currency: string }',
  '',
  'export function issue(invoice: Invoice): Invoice {',
  "  log.info({ invoiceId: invoice.id }, 'invoice issued');",
  '  return invoice;',
  '}',
);

export const STORAGE_CASES: ReviewCase[] = [
  defineCase({
    id: 'db-mysql-pool',
    title: 'The orders service opens a MySQL pool',
    note: 'A second database engine in a service, where the record names one.',
    records: ['postgres', 'mongoEvents'],
    base: ORDERS_POOL,
    change: {
      'services/orders/db/mysqlPool.ts': code(
        "import mysql from 'mysql2/promise';",
        '',
        '// Orders move to the MySQL cluster the billing team already runs.',
        "export const mysqlPool = mysql.createPool({ uri: 'mysql://orders@billing-db/orders', connectionLimit: 10 });",
      ),
    },
    breaks: [
      {
        file: 'services/orders/db/mysqlPool.ts',
        at: "import mysql from 'mysql2/promise';\n\n// Orders move to the MySQL cluster the billing team already runs.\nexport const mysqlPool",
        record: 'postgres',
      },
    ],
  }),
  defineCase({
    id: 'db-pg-query',
    title: 'A new query on the orders database',
    note: 'Clean: a governed file changes, through the chosen driver.',
    records: ['postgres'],
    base: ORDERS_POOL,
    change: {
      'services/orders/db/orders.ts': code(
        "import { pool } from './pool';",
        '',
        'export async function findOrder(id: string) {',
        "  const { rows } = await pool.query('SELECT id, status, total_cents FROM orders WHERE id = $1', [id]);",
        '  return rows[0];',
        '}',
        '',
        'export async function ordersOf(customerId: string, limit = 50) {',
        '  const { rows } = await pool.query(',
        "    'SELECT id, status, total_cents FROM orders WHERE customer_id = $1 ORDER BY created_at DESC LIMIT $2',",
        '    [customerId, limit],',
        '  );',
        '  return rows;',
        '}',
      ),
    },
  }),
  defineCase({
    id: 'db-sqlite-cli-cache',
    title: 'The command-line tool caches answers in SQLite',
    note: 'Clean, though it looks like a breach: the record allows SQLite in tools/cli, which is not a service.',
    records: ['postgres'],
    base: ORDERS_POOL,
    change: {
      'tools/cli/cache.ts': code(
        "import Database from 'better-sqlite3';",
        "import { homedir } from 'node:os';",
        "import { join } from 'node:path';",
        '',
        "const db = new Database(join(homedir(), '.shop-cli', 'cache.db'));",
        "db.exec('CREATE TABLE IF NOT EXISTS answers (key TEXT PRIMARY KEY, body TEXT, at INTEGER)');",
        '',
        'export function cached(key: string): string | undefined {',
        "  const row = db.prepare('SELECT body FROM answers WHERE key = ?').get(key) as { body: string } | undefined;",
        '  return row?.body;',
        '}',
      ),
    },
  }),
  defineCase({
    id: 'db-mongo-search-indexer',
    title: 'The search service writes to MongoDB from its indexer',
    note: "A breach in a file the record's scope (services/*/db/**) does not name.",
    records: ['postgres', 'mongoEvents'],
    base: ORDERS_POOL,
    change: {
      'services/search/indexer.ts': code(
        "import { MongoClient } from 'mongodb';",
        '',
        "const client = new MongoClient('mongodb://search-db:27017');",
        '',
        'export async function index(doc: { id: string; text: string }): Promise<void> {',
        "  await client.db('search').collection('docs').updateOne({ _id: doc.id }, { $set: doc }, { upsert: true });",
        '}',
      ),
    },
    breaks: [
      {
        file: 'services/search/indexer.ts',
        at: "import { MongoClient } from 'mongodb';\n\nconst client = new MongoClient('mongodb://search-db:27017');",
        record: 'postgres',
      },
    ],
  }),
  defineCase({
    id: 'layer-domain-imports-db',
    title: 'A domain rule reads the database',
    note: 'The domain layer imports from src/db.',
    records: ['layering', 'errors'],
    base: { ...COMMON.result, 'src/domain/orders.ts': DOMAIN_ORDERS },
    change: {
      'src/domain/orders.ts': DOMAIN_ORDERS.replace(
        "import { err, ok, type DomainError, type Result } from './result';\n",
        "import { err, ok, type DomainError, type Result } from './result';\nimport { paymentsOf } from '../db/payments';\n",
      ).replace(
        "  return ok({ ...order, status: 'cancelled' });",
        "  if (paymentsOf(order.id).length > 0) return err({ kind: 'conflict', message: 'refund first' });\n  return ok({ ...order, status: 'cancelled' });",
      ),
    },
    breaks: [{ file: 'src/domain/orders.ts', at: "import { paymentsOf } from '../db/payments';", record: 'layering' }],
  }),
  defineCase({
    id: 'layer-db-implements-port',
    title: 'The database layer implements a domain port',
    note: 'Clean: src/db imports src/domain, the direction the record allows.',
    records: ['layering'],
    base: { ...COMMON.result, 'src/domain/orders.ts': DOMAIN_ORDERS },
    change: {
      'src/domain/ports.ts': code(
        "import type { Order } from './orders';",
        '',
        'export interface OrdersPort {',
        '  find(id: string): Promise<Order | undefined>;',
        '}',
      ),
      'src/db/ordersRepo.ts': code(
        "import type { Order } from '../domain/orders';",
        "import type { OrdersPort } from '../domain/ports';",
        "import { pool } from './pool';",
        '',
        'export const ordersRepo: OrdersPort = {',
        '  async find(id) {',
        "    const { rows } = await pool.query('SELECT * FROM orders WHERE id = $1', [id]);",
        '    return rows[0] as Order | undefined;',
        '  },',
        '};',
      ),
    },
  }),
  defineCase({
    id: 'layer-http-calls-domain',
    title: 'A route calls a domain rule',
    note: 'Clean: src/http imports src/domain.',
    records: ['layering', 'errors'],
    base: { ...COMMON.result, 'src/domain/orders.ts': DOMAIN_ORDERS },
    change: {
      'src/http/cancel.ts': code(
        "import { Router } from 'express';",
        "import { cancel } from '../domain/orders';",
        "import { ordersRepo } from '../db/ordersRepo';",
        '',
        'export const router = Router();',
        '',
        "router.post('/v1/orders/:id/cancel', async (req, res) => {",
        '  const order = await ordersRepo.find(req.params.id);',
        '  if (!order) return res.status(404).end();',
        '  const r = cancel(order);',
        '  return r.ok ? res.json(r.value) : res.status(409).json({ error: r.error.message });',
        '});',
      ),
    },
  }),
  defineCase({
    id: 'log-console-in-service',
    title: 'Invoice code prints with console.log',
    note: 'Printing in application code where the record says: only the logger.',
    records: ['logging', 'money'],
    base: { ...COMMON.log, 'src/billing/invoice.ts': INVOICE },
    change: {
      'src/billing/invoice.ts': INVOICE.replace(
        "  log.info({ invoiceId: invoice.id }, 'invoice issued');",
        "  log.info({ invoiceId: invoice.id }, 'invoice issued');\n  console.log('issued invoice', invoice.id, 'for', invoice.customerId);",
      ),
    },
    breaks: [{ file: 'src/billing/invoice.ts', at: "  console.log('issued invoice'", record: 'logging' }],
  }),
  defineCase({
    id: 'log-console-in-script',
    title: 'A backfill script prints its progress',
    note: 'Clean, though it looks like a breach: the record lets scripts/ print to the console.',
    records: ['logging'],
    base: { ...COMMON.log, 'src/billing/invoice.ts': INVOICE },
    change: {
      'scripts/backfill-invoices.ts': code(
        "import { issue } from '../src/billing/invoice';",
        "import { pendingInvoices } from '../src/billing/pending';",
        '',
        'const invoices = await pendingInvoices();',
        'for (const [i, invoice] of invoices.entries()) {',
        '  issue(invoice);',
        '  console.log(`${i + 1}/${invoices.length} ${invoice.id}`);',
        '}',
      ),
    },
  }),
  defineCase({
    id: 'http-axios',
    title: 'The shipping integration calls its API with axios',
    note: 'A second HTTP client.',
    records: ['http', 'logging'],
    base: COMMON.http,
    change: {
      'src/integrations/shipping.ts': code(
        "import axios from 'axios';",
        '',
        'export async function quote(parcel: { weightGrams: number; to: string }) {',
        "  const { data } = await axios.post('https://api.shipper.example/v2/quotes', parcel, { timeout: 5000 });",
        '  return data as { priceCents: number; days: number };',
        '}',
      ),
    },
    breaks: [{ file: 'src/integrations/shipping.ts', at: "import axios from 'axios';", record: 'http' }],
  }),
  defineCase({
    id: 'http-wrapper-undici',
    title: 'The HTTP wrapper learns to send headers',
    note: 'Clean, though it imports undici: the record names src/lib/http.ts as the one module that may.',
    records: ['http'],
    base: COMMON.http,
    change: {
      'src/lib/http.ts': COMMON.http['src/lib/http.ts'].replace(
        'init: { method?: string; body?: string } = {}',
        'init: { method?: string; body?: string; headers?: Record<string, string> } = {}',
      ),
    },
  }),
  defineCase({
    id: 'http-tax-through-wrapper',
    title: 'A tax-rate lookup through the HTTP wrapper',
    note: 'Clean: a new integration that uses request() as the record asks.',
    records: ['http', 'money'],
    base: COMMON.http,
    change: {
      'src/integrations/tax.ts': code(
        "import { request } from '../lib/http';",
        '',
        'export async function rateBasisPoints(country: string): Promise<number> {',
        '  const body = (await request(`https://tax.example/v1/rates/${encodeURIComponent(country)}`)) as { bps: number };',
        '  return body.bps;',
        '}',
      ),
    },
  }),
];
