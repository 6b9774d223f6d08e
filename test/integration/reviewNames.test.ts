/**
 * Paths are data: a change whose file names hold a newline, a carriage return, U+2028, a
 * zero-width space, a soft hyphen and a bidi override is reviewed and exits by its findings, with
 * the real CLI on a real repository against a loopback server, in-process (--no-daemon) and through
 * a running daemon, which then serves the next review. (secretlint used to put the path into a
 * performance mark: the measure threw in a promise nobody awaited and took the process down.)
 * Reviewers see each name in a visible, escaped form; a finding that copies it names the file, and
 * every report names the invisible characters.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import type { ChatBody, Reply } from '../fakes/openaiServer';
import { MYSQL_POOL, POSTGRES_RECORD, makeReviewRepo, reviewDaemonSuite, type ReviewRepo } from '../fakes/reviewRepo';

/** The file with the pool, named with a zero-width space; the others hold the other characters. */
const POOL_FILE = 'services/orders/db\u200b.ts';
const ODD_FILES = [
  'services/orders/new\nline.ts',
  'services/orders/carriage\rreturn.ts',
  'services/orders/line\u2028separator.ts',
  'services/orders/soft\u00adhyphen.ts',
  'services/orders/evil\u202ests.ts',
];

/**
 * Reviewers as models write: the file's name copied, as shown in the diff, into a JSON string (so
 * `db\u200b.ts` shown reads back as the real name), the pool's line cited; a ballot that accepts
 * every finding with that file as evidence.
 */
function copyingResponder(body: ChatBody): Reply {
  const text = (body.messages ?? []).map((m) => m.content).join('\n');
  // The diff is quoted line by line (`| diff --git a/NAME b/NAME`): the name of the section with the pool.
  let shown = '';
  for (const line of text.split('\n')) {
    const header = /^\| diff --git a\/(.*) b\/\1$/.exec(line);
    if (header) shown = header[1] as string;
    if (line.includes('mysql.createPool')) break;
  }
  if (text.includes('"findings": [')) {
    if (!text.includes('mysql.createPool') || !shown) return '{"findings": []}';
    return `{"findings": [{"file": "${shown}", "lines": {"start": 2, "end": 2}, "severity": "blocking", "decision": "0001", "claim": "A MySQL pool where decision 0001 says Postgres for every service."}]}`;
  }
  if (text.includes('{"votes": [')) {
    const ids = [...new Set([...text.matchAll(/^(?:\| )?(O\d+): /gm)].map((m) => m[1] as string))];
    const votes = ids.map(
      (option) =>
        `{"option": "${option}", "vote": "accept", "confidence": 0.9, "rationale": "Line 2 creates a MySQL pool.", "evidence": [{"file": "${shown}", "section": "lines 2", "type": "code"}, {"file": "${POSTGRES_RECORD}", "section": "Decision Outcome", "type": "doc"}]}`,
    );
    return `{"votes": [${votes.join(', ')}]}`;
  }
  return 'The panel reviewed the change. [STANCE: AGREE]';
}

async function oddChange(): Promise<ReviewRepo> {
  const r = await makeReviewRepo();
  await r.write(POOL_FILE, MYSQL_POOL);
  for (const [i, f] of ODD_FILES.entries()) await r.write(f, `export const odd${i} = ${i};\n`);
  r.git('add', '.');
  r.git('commit', '-qm', 'orders: files with odd names, one with a MySQL pool');
  return r;
}

interface Report {
  exit: number;
  findings: { file: string; verdict: string }[];
  scope: { changed: { file: string; shown?: string }[]; unread?: unknown[] };
}

describe('a change whose file names hold newlines, CR, U+2028, zero-width and bidi characters', () => {
  const s = reviewDaemonSuite(copyingResponder, oddChange);

  it('--no-daemon: reviewed, exit 1 by its finding, each name read exactly and shown escaped, the characters named', async () => {
    const md = path.join(s.repo().root, '..', 'review.md');
    const res = await s.review(['--json', '--markdown', md], { daemon: false });
    assert.equal(res.code, 1, res.stderr);
    const report = JSON.parse(res.stdout) as Report;
    assert.deepEqual(
      report.findings.filter((f) => f.verdict === 'PROVEN').map((f) => f.file),
      [POOL_FILE],
    );
    assert.deepEqual(report.scope.unread ?? [], []);
    const changed = new Map(report.scope.changed.map((c) => [c.file, c.shown]));
    assert.deepEqual([...changed.keys()].sort(), [POOL_FILE, ...ODD_FILES].sort());
    assert.equal(changed.get(POOL_FILE), 'services/orders/db\\u200b.ts');
    assert.equal(changed.get('services/orders/new\nline.ts'), 'services/orders/new\\nline.ts');
    assert.equal(changed.get('services/orders/evil\u202ests.ts'), 'services/orders/evil\\u202ests.ts');
    const text = await readFile(md, 'utf8');
    assert.match(text, /`services\/orders\/db\\u200b\.ts:2` \(holds U\+200B ZERO WIDTH SPACE\) — breaks decision/);
  });

  it('through a running daemon: the same exit 1 and the names on the terminal, and the daemon serves the next review', async () => {
    const res = await s.review([]);
    assert.equal(res.code, 1, res.stderr);
    assert.match(res.stdout, /running in the daemon/);
    assert.match(
      res.stdout,
      /^PROVEN blocking services\/orders\/db\\u200b\.ts:2 \(holds U\+200B ZERO WIDTH SPACE\) — breaks decision 0001: /m,
    );
    const next = await s.review(['--json']);
    assert.equal(next.code, 1, next.stderr);
    assert.match(next.stderr, /running in the daemon/);
    assert.equal(s.daemon().proc.exitCode, null, s.daemon().output());
  });
});
