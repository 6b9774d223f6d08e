import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { MeetingState } from '@roundtable/protocol';
import { initialState, linkSupersession, supersededRecords } from '@roundtable/protocol';
import { rankRecords } from '../../daemon/src/decisions/index';
import { parseRecord } from '../../daemon/src/decisions/record';

const MADR4 = '---\nstatus: accepted\ndate: 2025-01-10\n---\n\n# Use Postgres for storage\n\n## Context\n\nOrders.\n';
const MADR2 = '# 0003. Pick React for the frontend\n\n- Status: accepted\n- Date: 2025-02-02\n\n## Context\n\nUI.\n';
const NYGARD =
  '# 2. Record architecture decisions\n\nDate: 2024-03-01\n\n## Status\n\nAccepted\n\n## Context\n\nWe write.\n';

describe('decision records', () => {
  it('reads title, status and date from MADR (front matter and bullets) and Nygard records', () => {
    assert.deepEqual(
      [MADR4, MADR2, NYGARD].map((t) => {
        const r = parseRecord('x.md', t);
        return [r.title, r.status, r.date];
      }),
      [
        ['Use Postgres for storage', 'accepted', '2025-01-10'],
        ['0003. Pick React for the frontend', 'accepted', '2025-02-02'],
        ['2. Record architecture decisions', 'Accepted', '2024-03-01'],
      ],
    );
  });

  it('ranks records by the words they share with the topic, title first, and drops unrelated ones', () => {
    const records = [
      parseRecord('a.md', MADR4),
      parseRecord('b.md', MADR2),
      parseRecord('c.md', '# Caching\n\nWe cache storage reads.\n'),
    ];
    assert.deepEqual(
      rankRecords(records, 'Should storage move off Postgres?').map((r) => r.path),
      ['a.md', 'c.md'],
    );
    assert.equal(rankRecords(records, 'storage', 1).length, 1, 'capped');
  });

  it('links a new record and the one it supersedes both ways, in every format, once', () => {
    const NEW = '# 0004. Move storage to SQLite\n\n- Status: accepted\n- Date: 2026-01-01\n\n## Context\n';
    for (const old of [MADR4, MADR2, NYGARD]) {
      const { newText, oldText } = linkSupersession(NEW, old, {
        newPath: 'docs/decisions/0004-sqlite.md',
        oldPath: 'docs/decisions/0001-postgres.md',
      });
      assert.match(newText, /^- Supersedes: \[.+\]\(0001-postgres\.md\)$/m);
      assert.match(oldText, /superseded by \[0004\. Move storage to SQLite\]\(0004-sqlite\.md\)/);
      assert.equal(parseRecord('o.md', oldText).status?.startsWith('superseded by'), true, 'the status now says so');
      const again = linkSupersession(newText, oldText, {
        newPath: 'docs/decisions/0004-sqlite.md',
        oldPath: 'docs/decisions/0001-postgres.md',
      });
      assert.deepEqual(again, { newText, oldText }, 'idempotent');
    }
  });

  it('takes SUPERSEDES lines only for records the meeting was briefed with', () => {
    const s: MeetingState = {
      ...initialState(),
      context: {
        seq: 2,
        budget: 8000,
        refused: [],
        items: [
          { kind: 'decision', path: 'docs/decisions/0001-a.md', sha256: 'x', tokens: 1, text: '', truncated: false },
        ],
      },
      digest: {
        text: 'CONSENSUS_STATEMENT: move\nSUPERSEDES: docs/decisions/0001-a.md\nSUPERSEDES: /etc/passwd\n',
        digest: {} as never,
      },
    };
    assert.deepEqual(supersededRecords(s), ['docs/decisions/0001-a.md']);
  });
});
