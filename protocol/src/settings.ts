/**
 * The extension's settings schema for the panel, generated from the protocol's `Participant`
 * schema so a field added there reaches VS Code's settings editor too. `npm run gen:settings`
 * writes it into package.json; a unit test fails when package.json is out of date.
 */
import { DEFAULT_UNSTATUSED, UnstatusedSchema, type Unstatused } from './decisionList';
import { MeetingConfigSchema, ParticipantSchema } from './domain';
import * as z from 'zod';

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

/**
 * `roundtable.tools`, generated from `MeetingConfig.tools`: off unless the person turns it on,
 * since a model that reads the workspace sends what it read to its provider.
 */
export function toolsSettingSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(MeetingConfigSchema.shape.tools.unwrap(), { target: 'draft-7' }) as Record<
    string,
    unknown
  >;
  delete schema.$schema;
  return {
    ...schema,
    default: false,
    markdownDescription:
      'Let workers read the workspace during their turns with read-only tools (`read_file`, `search`, `list_files`), ' +
      'where the provider supports tool calls (OpenAI-compatible servers and VS Code language models). Paths outside the workspace, git-ignored ' +
      'and secret-looking files are refused; every call is logged, counted into the budget and listed in the minutes. ' +
      "What a tool reads is sent to that model's provider.",
  };
}

/**
 * `roundtable.decisions.unstatused`, generated from `UnstatusedSchema`: how records with no status
 * are read in the Decisions view and in reviews, `accepted` unless the person says otherwise.
 */
export function unstatusedSettingSchema(): Record<string, unknown> {
  const descriptions: Record<Unstatused, string> = {
    accepted:
      'A record that writes no status is in force: a rule a review holds changes to (MADR makes the status optional).',
    ignore: 'A record that writes no status is not a rule.',
  };
  return {
    type: 'string',
    enum: [...UnstatusedSchema.options],
    enumDescriptions: UnstatusedSchema.options.map((o) => descriptions[o]),
    default: DEFAULT_UNSTATUSED,
    markdownDescription:
      'How decision records with no status are read, in the Decisions view and in reviews (as `roundtable decisions --unstatused`). ' +
      'A status that is written but not recognised is never read as accepted.',
  };
}
