/**
 * A review's repository and reviewers, for the tests of "Review Changes" (integration and
 * code-server): an accepted record "Postgres for every service", a committed Postgres pool and an
 * uncommitted MySQL pool; three reviewers who propose findings (ada two, grace the first in other
 * words, linus one citing a record that does not exist) and vote on them as models do: the finding
 * on 0001 upheld 3–0 with evidence, the defect accepted by ada alone and rejected without
 * counter-evidence (CONTESTED). The forms follow test/integration/reviewMeeting.test.ts.
 */
import { lastUserMessage, type ChatBody, type Reply } from './openaiServer';
import { ballotFindings } from './reviewers';

export const RECORD = `---
status: "accepted"
date: "2026-10-01"
---
# Use Postgres for every service

## Context and Problem Statement

Each service picked its own database; operations could not keep up.

## Decision Outcome

Chosen option: "Postgres for every service", because one engine is one set of backups, upgrades and skills.
`;
export const BEFORE =
  "import { Pool } from 'pg';\n\nexport const pool = new Pool({ connectionString: process.env.DATABASE_URL });\n";
export const AFTER = [
  "import { Pool } from 'pg';",
  "import mysql from 'mysql2/promise';",
  '',
  'export const pool = new Pool({ connectionString: process.env.DATABASE_URL });',
  '',
  '// Billing keeps its own MySQL database.',
  "export const billingPool = mysql.createPool({ host: 'billing-db', database: 'billing' });",
  '',
].join('\n');

export const PROVEN_CLAIM =
  'Adds a MySQL pool for billing; the accepted decision 0001 says Postgres for every service.';
/** Model text that must show as text: markup, a bidi override, a newline. */
export const CONTESTED_CLAIM =
  'Imports mysql2 <img src=x onerror=alert(1)> next to pg\u202E\nso the bundle carries two drivers.';

/** What each reviewer proposes (ada two findings, grace the first in other words, linus a decision that does not exist). */
const FINDINGS: Record<string, unknown[]> = {
  ada: [
    {
      file: 'src/db.ts',
      lines: { start: 6, end: 7 },
      severity: 'blocking',
      decision: '0001',
      claim: PROVEN_CLAIM,
      quote: "export const billingPool = mysql.createPool({ host: 'billing-db', database: 'billing' });",
    },
    {
      file: 'src/db.ts',
      lines: { start: 2, end: 2 },
      severity: 'major',
      defect: 'dependencies',
      claim: CONTESTED_CLAIM,
    },
  ],
  grace: [
    {
      file: 'src/db.ts',
      lines: { start: 7, end: 7 },
      severity: 'major',
      decision: 'ADR-0001',
      claim: 'billingPool is a mysql2 pool, which the Postgres-only record rules out.',
    },
  ],
  linus: [
    {
      file: 'src/db.ts',
      lines: { start: 7, end: 7 },
      severity: 'blocking',
      decision: '0099',
      claim: 'Breaks the connection-limits decision.',
    },
  ],
};

/** Everyone upholds the finding on 0001 with evidence; on the defect ada alone accepts, and nobody cites counter-evidence. */
function ballotOf(body: ChatBody, me: string): string {
  const votes = ballotFindings(lastUserMessage(body)).map(({ id: option, decision }) => {
    const holds = decision === '0001' || (decision === undefined && me === 'ada');
    return {
      option,
      vote: holds ? 'accept' : 'reject',
      confidence: decision ? 0.9 : 0.6,
      rationale: holds
        ? 'The quoted lines add a MySQL pool; 0001 says Postgres.'
        : 'One extra driver is harmless here.',
      evidence: holds
        ? [
            { file: 'src/db.ts', section: 'lines 6-7', type: 'code' },
            { file: 'docs/decisions/0001-use-postgres.md', type: 'doc' },
          ]
        : [],
      ...(decision ? {} : { uncertainty: 'The bundle size was not measured.' }),
    };
  });
  return JSON.stringify({ votes });
}

/**
 * The vote a ballot call is for, as its prompt says it to the model (round 1, then "This is
 * challenge round 1." for round 2…); undefined for a call that asks for no ballot.
 */
export function ballotRound(body: ChatBody): number | undefined {
  const asked = lastUserMessage(body);
  // Told apart by the reply format asked for, as a model reads its prompt.
  if (!asked.includes('{"votes": [')) return undefined;
  const challenge = /This is challenge round (\d+)\./.exec(asked);
  return challenge ? Number(challenge[1]) + 1 : 1;
}

export function reviewers(body: ChatBody): Reply {
  const system = body.messages?.[0]?.content ?? '';
  const me = /^You are (\w+)/.exec(system)?.[1] ?? '';
  if (ballotRound(body) !== undefined) return { text: ballotOf(body, me) };
  if (/a reviewer on a panel/.test(system)) return { text: JSON.stringify({ findings: FINDINGS[me] ?? [] }) };
  return { text: 'The review is done.' };
}
