/**
 * Writes the `roundtable.participants` item schema and the `roundtable.tools` setting into
 * package.json from the protocol's `Participant` and `MeetingConfig` schemas (`npm run gen:settings`). test/unit/settingsSchema.test.ts fails when
 * package.json is out of date, so the settings editor never drifts from what the daemon accepts.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { participantSettingSchema, toolsSettingSchema } from '../protocol/src/settings';

const file = path.join(__dirname, '..', 'package.json');
const pkg = JSON.parse(readFileSync(file, 'utf8')) as {
  contributes: { configuration: { properties: Record<string, { items?: unknown }> } };
};
const setting = pkg.contributes.configuration.properties['roundtable.participants'];
if (!setting) throw new Error('package.json has no roundtable.participants setting');
setting.items = participantSettingSchema();
pkg.contributes.configuration.properties['roundtable.tools'] = toolsSettingSchema();
writeFileSync(file, `${JSON.stringify(pkg, null, 2)}\n`);
console.log('package.json: roundtable.participants and roundtable.tools regenerated from the protocol schemas');
