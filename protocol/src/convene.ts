/**
 * What a caller gives to convene a meeting without a picker (the VS Code language model tool and
 * `@roundtable`): defined once, so the check and the tool's input schema in package.json (written
 * by `npm run gen:settings`) cannot drift apart.
 */
import { MeetingModeSchema } from './domain';
import { StartMeetingParamsSchema } from './messageSchemas';
import * as z from 'zod';
import { int, text } from './schema';

/** The context item that stands for the current git diff (the work tree against HEAD). */
export const DIFF_CONTEXT = 'diff';

export const ConveneInputSchema = z.object({
  topic: StartMeetingParamsSchema.shape.topic.describe(
    'The question the panel should decide or discuss, in one or two sentences.',
  ),
  mode: MeetingModeSchema.optional().describe(
    '"roundtable": the panel discusses in rounds until it agrees. "consensus": the panel votes on options. Default: consensus when options are given, else roundtable.',
  ),
  options: StartMeetingParamsSchema.shape.options.describe(
    'Consensus only: two or more options to vote on; leave out to have the panel propose them.',
  ),
  context: z
    .array(text({ min: 1, max: 1_000 }))
    .max(50, { error: 'must list at most 50 paths' })
    .optional()
    .describe(
      `Workspace-relative files or folders the panel reads; the item "${DIFF_CONTEXT}" adds the current git diff.`,
    ),
  maxRounds: int(1, 100)
    .optional()
    .describe("Most rounds the meeting may take (default: the user's roundtable.maxRounds)."),
});
export type ConveneInput = z.input<typeof ConveneInputSchema>;

/** The tool's `inputSchema` for package.json's `languageModelTools`. */
export function conveneInputJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(ConveneInputSchema, {
    target: 'draft-7',
    io: 'input',
    unrepresentable: 'any',
  }) as Record<string, unknown>;
  delete schema.$schema;
  return schema;
}

/** The language model tool's name in package.json and `vscode.lm` (`#roundtable` in a prompt). */
export const CONVENE_TOOL_NAME = 'roundtable_convene';
