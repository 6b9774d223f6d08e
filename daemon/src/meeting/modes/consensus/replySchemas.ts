/**
 * What a worker returns in consensus mode, as JSON Schema for servers that take structured output.
 * These describe the model's own reply, never the recorded vote: evidence `status`, the verdicts
 * and the abstentions filled in for options left out are the engine's, and no model may set them.
 */
import type { JsonReply } from '../../../providers/types';

const evidenceItem = {
  type: 'object',
  properties: {
    file: { type: 'string', description: 'Workspace-relative path of the evidence' },
    section: { type: 'string', description: 'Heading, function or line range' },
    type: { type: 'string', description: 'doc, code, test, benchmark…' },
  },
  required: ['file'],
  additionalProperties: false,
};

/**
 * A ballot on these options: one vote per option, the option named by one of their ids (an
 * enum, so a server with structured output cannot answer with anything else).
 */
export function ballotReply(optionIds: string[]): JsonReply {
  return {
    name: 'ballot',
    schema: {
      type: 'object',
      properties: {
        votes: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              option: { type: 'string', enum: optionIds, description: 'The option id, e.g. O1' },
              vote: { type: 'string', enum: ['accept', 'reject', 'abstain'] },
              confidence: { type: 'number', minimum: 0, maximum: 1 },
              rationale: { type: 'string' },
              evidence: { type: 'array', items: evidenceItem },
              assumptions: { type: 'array', items: { type: 'string' } },
              uncertainty: { type: 'string' },
              compromise: { type: 'string' },
            },
            required: ['option', 'vote', 'confidence', 'rationale'],
            additionalProperties: false,
          },
        },
      },
      required: ['votes'],
      additionalProperties: false,
    },
  };
}

/** The proposal round: the options a worker puts forward. */
export const PROPOSALS_REPLY: JsonReply = {
  name: 'proposals',
  schema: {
    type: 'object',
    properties: { options: { type: 'array', items: { type: 'string' } } },
    required: ['options'],
    additionalProperties: false,
  },
};

/** A review's proposal step: the findings a reviewer puts forward (an empty list when the change is fine). */
export const FINDINGS_REPLY: JsonReply = {
  name: 'findings',
  schema: {
    type: 'object',
    properties: {
      findings: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            file: { type: 'string', description: 'Path of a changed file' },
            lines: {
              type: 'object',
              properties: { start: { type: 'integer', minimum: 1 }, end: { type: 'integer', minimum: 1 } },
              required: ['start', 'end'],
              additionalProperties: false,
            },
            severity: { type: 'string', enum: ['blocking', 'major', 'minor', 'note'] },
            decision: { type: 'string', description: 'Id of the accepted decision the change breaks' },
            defect: { type: 'string', description: 'The defect class, when no decision is broken' },
            claim: { type: 'string' },
            quote: { type: 'string', description: 'The changed lines the finding rests on' },
          },
          required: ['file', 'lines', 'severity', 'claim'],
          additionalProperties: false,
        },
      },
    },
    required: ['findings'],
    additionalProperties: false,
  },
};
