/**
 * A record's number from its file name, one rule for the daemon's ids and the extension's next
 * record: a date-named record has no number (before, the extension read `2024-05-16-x.md` as
 * record 2024 and numbered the next one 2025).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { nameNumber } from '@roundtable/protocol';

describe("a record's number from its file name", () => {
  it('reads the digits as written, with or without an ADR prefix, in any folder', () => {
    assert.equal(nameNumber('docs/decisions/0007-use-postgres.md'), '0007');
    assert.equal(nameNumber('ADR015-aws-iam.md'), '015');
    assert.equal(nameNumber('adr-12_x.md'), '12');
    assert.equal(nameNumber('doc/adr/5.md'), '5');
  });

  it('gives a date-named record no number: its digits are a date', () => {
    for (const name of ['2024-05-16-use-postgres.md', '20240516-x.md', '20240516132303-x.md'])
      assert.equal(nameNumber(`docs/decisions/${name}`), undefined, name);
  });

  it('gives a name without leading digits no number', () => {
    assert.equal(nameNumber('use-postgres.md'), undefined);
    assert.equal(nameNumber('README.md'), undefined);
  });
});
