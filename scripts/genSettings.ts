/**
 * Writes the `roundtable.participants` item schema into package.json from the protocol's
 * `Participant` schema (`npm run gen:settings`). test/unit/settingsSchema.test.ts fails when
 * package.json is out of date, so the settings editor never drifts from what the daemon accepts.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { participantSettingSchema } from '../protocol/src/settings';

const file = path.join(__dirname, '..', 'package.json');
const pkg = JSON.parse(readFileSync(file, 'utf8')) as {
  contributes: { configuration: { properties: Record<string, { items?: unknown }> } };
};
const setting = pkg.contributes.configuration.properties['roundtable.participants'];
if (!setting) throw new Error('package.json has no roundtable.participants setting');
setting.items = participantSettingSchema();
writeFileSync(file, `${JSON.stringify(pkg, null, 2)}\n`);
console.log('package.json: roundtable.participants schema regenerated from protocol/src/events.ts');
