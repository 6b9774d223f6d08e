/**
 * Every recorded real review reply in test/fixtures/real-replies/review/findings.json, read as
 * the review reads it: the findings a person reads in it (file, lines, severity, claim, decision),
 * and whether the reply is a whole review, part of one, or none. Samples and their sources are
 * listed in test/fixtures/real-replies/README.md; labels are a person's reading, never the parser's.
 * A severity the reply writes on a scale it does not show (a bare number up to 5: kaizen's 1-10 or
 * Gito's 1-5 with 1 the most severe?) is read as blocking and says so: there the label is a floor.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { SEVERITIES, type Finding, type Severity } from '@roundtable/protocol';
import { readFindings } from '../../daemon/src/meeting/reviewReply';

interface Sample {
  id: string;
  family: string;
  source: { repository: string; commit: string; path: string };
  text: string;
  finishReason?: 'length';
  scope: { root?: string; changed: string[]; decisions: string[] };
  expect: {
    read: 'complete' | 'partial' | 'none';
    findings: { file: string; lines: [number, number]; severity: Severity | null; claim: string; decision?: string }[];
  };
}

const SAMPLES = JSON.parse(
  readFileSync(path.join(__dirname, '..', 'fixtures', 'real-replies', 'review', 'findings.json'), 'utf8'),
) as Sample[];

describe('recorded real review replies', () => {
  it('every sample names its source: repository, a 40-hex commit and a path', () => {
    assert.ok(SAMPLES.length >= 8);
    for (const s of SAMPLES) {
      assert.match(s.source.repository, /^[\w.-]+\/[\w.-]+$/, s.id);
      assert.match(s.source.commit, /^[0-9a-f]{40}$/, s.id);
      assert.ok(s.source.path, s.id);
    }
  });

  for (const s of SAMPLES)
    it(`${s.id} (${s.family}): ${s.expect.read}, ${s.expect.findings.length} finding(s)`, () => {
      const ctx = {
        changed: s.scope.changed.map((file) => ({ file })),
        decisions: s.scope.decisions,
        ...(s.scope.root ? { root: s.scope.root } : {}),
      };
      const r = readFindings(s.text, ctx, { cut: s.finishReason === 'length' });
      assert.equal(r.read, s.expect.read, JSON.stringify(r));
      const got = r.read === 'none' ? [] : r.findings;
      assert.deepEqual(
        got.map((f) => [f.file, [f.lines.start, f.lines.end], f.decision]),
        s.expect.findings.map((f) => [f.file, f.lines, f.decision]),
      );
      s.expect.findings.forEach((f, i) => {
        const read = got[i] as Finding;
        assert.ok(read.claim.includes(f.claim), `${read.claim} ∌ ${f.claim}`);
        // The severity as labelled; none written (null) reads blocking, as the table says; where the
        // reader says the reply does not show its scale (severityWritten), never less severe than
        // labelled: unknown is read as blocking.
        if (f.severity === null) assert.equal(read.severity, 'blocking', `finding ${i + 1} states no severity`);
        else if (read.severityWritten === undefined) assert.equal(read.severity, f.severity, `finding ${i + 1}`);
        else
          assert.ok(
            SEVERITIES.indexOf(read.severity) <= SEVERITIES.indexOf(f.severity),
            `finding ${i + 1}: ${read.severity} (written ${read.severityWritten}) is below the labelled ${f.severity}`,
          );
      });
    });
});
