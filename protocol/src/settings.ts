/**
 * The extension's settings schema for the panel, generated from the protocol's `Participant`
 * schema so a field added there reaches VS Code's settings editor too. `npm run gen:settings`
 * writes it into package.json; a unit test fails when package.json is out of date.
 */
import { ParticipantSchema } from './events';
import { z } from './schema';

/** JSON Schema of one `roundtable.participants` entry, as VS Code's settings editor reads it. */
export function participantSettingSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(ParticipantSchema, { target: 'draft-7', unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
  // VS Code reads a plain object schema; these two keys only matter to generic validators.
  delete schema.$schema;
  delete schema.title;
  return schema;
}
