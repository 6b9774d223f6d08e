import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { participantSettingSchema } from '../../protocol/src';

describe('settings schema', () => {
  it("package.json's roundtable.participants items are generated from the Participant schema (run npm run gen:settings)", () => {
    const pkg = JSON.parse(readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8')) as {
      contributes: { configuration: { properties: Record<string, { items?: unknown }> } };
    };
    assert.deepEqual(
      pkg.contributes.configuration.properties['roundtable.participants']?.items,
      participantSettingSchema(),
    );
  });
});
