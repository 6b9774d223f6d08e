import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import {
  MeetingConfigSchema,
  participantSettingSchema,
  toolsSettingSchema,
  unstatusedSettingSchema,
} from '@roundtable/protocol';
import { stopWhenStableConfig, toolsConfig } from '../../extension/src/toolsSetting';

const properties = (
  JSON.parse(readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8')) as {
    contributes: { configuration: { properties: Record<string, { items?: unknown }> } };
  }
).contributes.configuration.properties;

describe('settings schema', () => {
  it("package.json's roundtable.participants items are generated from the Participant schema (run npm run gen:settings)", () => {
    assert.deepEqual(properties['roundtable.participants']?.items, participantSettingSchema());
  });

  it('roundtable.decisions.unstatused is generated from the Unstatused schema: accepted or ignore, accepted by default (run npm run gen:settings)', () => {
    const setting = properties['roundtable.decisions.unstatused'] as Record<string, unknown> | undefined;
    assert.deepEqual(setting, unstatusedSettingSchema());
    assert.deepEqual([setting?.enum, setting?.default], [['accepted', 'ignore'], 'accepted']);
  });

  it('roundtable.tools is generated from MeetingConfig.tools: a checkbox, off by default (run npm run gen:settings)', () => {
    const setting = properties['roundtable.tools'] as Record<string, unknown> | undefined;
    assert.deepEqual(setting, toolsSettingSchema());
    assert.equal(setting?.type, 'boolean');
    assert.equal(setting?.default, false, 'models read nothing unless the person turns the tools on');
  });

  it('roundtable.tools becomes config.tools only when turned on, and a wrong value is one clear line', () => {
    const on = MeetingConfigSchema.partial().parse(toolsConfig(true));
    assert.equal(on.tools, true);
    // Off or unset leaves the daemon's default (no tools), so old meetings fold the same.
    assert.deepEqual(toolsConfig(false), {});
    assert.deepEqual(toolsConfig(undefined), {});
    assert.throws(() => toolsConfig('yes'), /^Error: roundtable\.tools must be true or false, got "yes"\.$/);
  });

  it('roundtable.stopWhenStable is on by default; only turning it off reaches the meeting', () => {
    assert.equal((properties['roundtable.stopWhenStable'] as { default?: unknown } | undefined)?.default, true);
    assert.equal(MeetingConfigSchema.partial().parse(stopWhenStableConfig(false)).stopWhenStable, false);
    assert.deepEqual(stopWhenStableConfig(true), {});
    assert.deepEqual(stopWhenStableConfig(undefined), {});
    assert.throws(() => stopWhenStableConfig(1), /^Error: roundtable\.stopWhenStable must be true or false, got 1\.$/);
  });
});
