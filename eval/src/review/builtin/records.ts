/**
 * The decision records of the built-in review set: the kinds of decisions teams write down (one
 * database engine, layering, a logging and an HTTP library, error handling, money, time zones, API
 * versioning, configuration, feature flags, async code, tests), in MADR with front matter. Several
 * say what they allow, so a change can look like a breach and still keep the record.
 */

interface RecordSpec {
  title: string;
  date: string;
  scope?: string[];
  status?: string;
  context: string;
  decision: string;
  allowed?: string;
}

function madr(r: RecordSpec): string {
  const scope = r.scope?.length ? `scope:\n${r.scope.map((s) => `  - "${s}"`).join('\n')}\n` : '';
  return [
    `---\nstatus: ${r.status ?? 'accepted'}\ndate: ${r.date}\n${scope}---\n`,
    `# ${r.title}\n`,
    `## Context and Problem Statement\n\n${r.context}\n`,
    `## Decision Outcome\n\n${r.decision}\n`,
    ...(r.allowed ? [`### Allowed\n\n${r.allowed}\n`] : []),
  ].join('\n');
}

/** Record path → text, by the id the cases use. */
export const RECORDS = {
  postgres: {
    path: 'docs/decisions/0001-postgres-for-every-service.md',
    text: madr({
      title: 'Postgres for every service',
      date: '2025-01-10',
      scope: ['services/*/db/**'],
      context:
        'Services kept their own databases (MySQL, SQLite, MongoDB, Postgres); backups, migrations and on-call differed for each.',
      decision:
        'Every service stores its data in Postgres, through the `pg` driver, with migrations in node-pg-migrate. No MySQL, no SQLite, no MongoDB in a service.',
      allowed:
        'The command-line tool in `tools/cli` is not a service: its local cache may use SQLite (better-sqlite3). Tests may use pg-mem.',
    }),
  },
  layering: {
    path: 'docs/decisions/0002-domain-layer-imports-nothing-outward.md',
    text: madr({
      title: 'The domain layer imports nothing outward',
      date: '2025-02-03',
      scope: ['src/domain/**'],
      context: 'Business rules were tangled with HTTP handlers and SQL; a change to one broke the others.',
      decision:
        'Three layers: `src/http` → `src/domain` ← `src/db`. Code in `src/domain` imports only other domain modules and the standard library: never `src/http`, never `src/db`, never a driver. The domain declares ports (interfaces); `src/db` implements them.',
      allowed: '`src/http` and `src/db` may import `src/domain` (that is the direction the arrows point).',
    }),
  },
  logging: {
    path: 'docs/decisions/0003-structured-logging-with-pino.md',
    text: madr({
      title: 'Structured logging through one logger',
      date: '2025-02-20',
      context: 'Logs mixed console output, winston and pino; nothing could be searched by request id.',
      decision:
        'Application code under `src/` logs only through `log` from `src/lib/log.ts` (pino), with structured fields: `log.info({ orderId }, "order paid")`. No `console.log`, `console.error` or another logging library in `src/`.',
      allowed: 'Scripts under `scripts/` and tests may print to the console.',
    }),
  },
  http: {
    path: 'docs/decisions/0004-one-http-client.md',
    text: madr({
      title: 'One HTTP client: undici behind src/lib/http.ts',
      date: '2025-03-02',
      context: 'axios, node-fetch and got were all in use, with different timeouts and retry rules.',
      decision:
        'Outgoing HTTP goes through `request()` from `src/lib/http.ts`, which wraps undici with a timeout and retries. No axios, node-fetch or got anywhere.',
      allowed: '`src/lib/http.ts` itself is the one module that imports undici directly.',
    }),
  },
  errors: {
    path: 'docs/decisions/0005-errors-as-values-in-the-domain.md',
    text: madr({
      title: 'Errors as values in the domain',
      date: '2025-03-15',
      context: 'Exceptions thrown for business rules crossed layers unannounced and turned into 500s.',
      decision:
        'Domain functions return `Result<T, DomainError>` (`src/domain/result.ts`) for every expected failure and never throw for a business rule. Only `src/http` turns a `Result` into a status code (it may throw `HttpError` there). No error is swallowed: a `catch` block logs or rethrows, never does nothing.',
    }),
  },
  money: {
    path: 'docs/decisions/0006-money-in-integer-cents.md',
    text: madr({
      title: 'Money in integer cents',
      date: '2025-04-01',
      context: 'Floating-point totals drifted by a cent on refunds and invoices did not add up.',
      decision:
        'Every amount is an integer number of minor units (cents) with its ISO 4217 currency beside it. No float amounts, no `toFixed` on money, no division of an amount except in rounding rules written in integers.',
      allowed: 'Display code (`src/ui/`) may divide by 100 to format an amount for people, with `Intl.NumberFormat`.',
    }),
  },
  time: {
    path: 'docs/decisions/0007-utc-on-the-server.md',
    text: madr({
      title: 'UTC on the server, the user’s zone only on screen',
      date: '2025-04-18',
      context: 'Cut-offs and reports moved by an hour twice a year; servers in two regions disagreed.',
      decision:
        'Server code stores, compares and schedules in UTC (`Date.UTC`, `getUTCHours`, ISO 8601 with `Z`). No local-time reads on the server (`getHours`, `getDate`, `toLocaleString` without a time zone).',
      allowed:
        'Display code (`src/ui/`) renders dates in the user’s own time zone with `Intl.DateTimeFormat` and an explicit `timeZone`.',
    }),
  },
  api: {
    path: 'docs/decisions/0008-versioned-public-api.md',
    text: madr({
      title: 'A versioned public API',
      date: '2025-05-06',
      scope: ['src/http/v1/**', 'src/http/v2/**'],
      context: 'A renamed field broke two mobile releases still in the stores.',
      decision:
        'Public routes live under `/v1/…`. A v1 response never loses or renames a field and never changes a field’s type; a breaking change ships as `/v2/…` beside v1, which stays for six months.',
      allowed: 'Adding an optional field to a v1 response is not a breaking change.',
    }),
  },
  config: {
    path: 'docs/decisions/0009-configuration-from-the-environment.md',
    text: madr({
      title: 'Configuration from the environment, read in one place',
      date: '2025-05-20',
      scope: ['src/config/**'],
      context: 'Settings were read from process.env all over the code, some with defaults pointing at production.',
      decision:
        'Configuration comes from environment variables, read and validated once in `src/config/index.ts`, which exports a typed `config`. No other module reads `process.env`. No URL, key or password is written in the code.',
    }),
  },
  flags: {
    path: 'docs/decisions/0010-feature-flags-through-one-module.md',
    text: madr({
      title: 'Feature flags through one module',
      date: '2025-06-09',
      context: 'Flags were read from the LaunchDarkly SDK in many places and never removed.',
      decision:
        'New user-facing behaviour ships behind a flag declared in `src/flags.ts` and read with `isOn("name", user)`. No module but `src/flags.ts` imports the LaunchDarkly SDK.',
    }),
  },
  async: {
    path: 'docs/decisions/0011-no-floating-promises.md',
    text: madr({
      title: 'No floating promises',
      date: '2025-06-30',
      context: 'Unawaited writes failed silently and requests returned before their work was done.',
      decision:
        'Every promise is awaited or returned. Work that must not hold up a response goes through `runInBackground(promise, what)` from `src/lib/background.ts`, which logs its failure.',
    }),
  },
  tests: {
    path: 'docs/decisions/0012-node-test-runner.md',
    text: madr({
      title: 'Tests on the Node test runner',
      date: '2025-07-14',
      scope: ['test/**'],
      context: 'Jest and Mocha suites ran with different globals and mocks; CI ran both.',
      decision:
        'Tests use `node:test` and `node:assert/strict`, in `test/` mirroring `src/`. No Jest, no Mocha, no Chai.',
    }),
  },
  mongoEvents: {
    path: 'docs/decisions/0013-mongodb-for-the-event-store.md',
    text: madr({
      title: 'MongoDB for the event store',
      date: '2023-09-01',
      status: 'superseded by 0001',
      context: 'The event store needed flexible documents.',
      decision: 'Events are stored in MongoDB.',
    }),
  },
} as const;

export type RecordName = keyof typeof RECORDS;

/** The id a finding cites a record by: its number in four digits (as the rulebook lists it). */
export function recordId(name: RecordName): string {
  return /(\d{4})-/.exec(RECORDS[name].path)?.[1] ?? name;
}

/** The base files of those records. */
export function records(...names: RecordName[]): Record<string, string> {
  return Object.fromEntries(names.map((n) => [RECORDS[n].path, RECORDS[n].text]));
}
