/**
 * Writes the `roundtable.participants` item schema, the `roundtable.tools` and
 * `roundtable.decisions.unstatused` settings and the
 * language model tool's input schema into package.json from the protocol's `Participant`,
 * `MeetingConfig` and `ConveneInput` schemas (`npm run gen:settings`). test/unit/settingsSchema.test.ts fails when
 * package.json is out of date, so the settings editor never drifts from what the daemon accepts.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { participantSettingSchema, toolsSettingSchema, unstatusedSettingSchema } from '@roundtable/protocol/settings';
import { CONVENE_TOOL_NAME, conveneInputJsonSchema } from '@roundtable/protocol/convene';

const file = path.join(__dirname, '..', 'package.json');
const pkg = JSON.parse(readFileSync(file, 'utf8')) as {
  contributes: {
    configuration: { properties: Record<string, { items?: unknown }> };
    languageModelTools?: { name: string; inputSchema?: unknown }[];
  };
};
const setting = pkg.contributes.configuration.properties['roundtable.participants'];
if (!setting) throw new Error('package.json has no roundtable.participants setting');
setting.items = participantSettingSchema();
pkg.contributes.configuration.properties['roundtable.tools'] = toolsSettingSchema();
pkg.contributes.configuration.properties['roundtable.decisions.unstatused'] = unstatusedSettingSchema();
const tool = pkg.contributes.languageModelTools?.find((t) => t.name === CONVENE_TOOL_NAME);
if (!tool) throw new Error(`package.json has no ${CONVENE_TOOL_NAME} language model tool`);
tool.inputSchema = conveneInputJsonSchema();
writeFileSync(file, `${JSON.stringify(pkg, null, 2)}\n`);
console.log(
  'package.json: roundtable.participants, roundtable.tools, roundtable.decisions.unstatused and the roundtable_convene input regenerated from the protocol schemas',
);
