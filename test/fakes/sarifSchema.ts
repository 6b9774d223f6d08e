/**
 * The official SARIF 2.1.0 schema (OASIS, test/fixtures/sarif/) compiled by a real JSON Schema
 * validator: what GitHub code scanning is promised a review's SARIF conforms to.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import Ajv from 'ajv-draft-04';
import addFormats from 'ajv-formats';

const SCHEMA = JSON.parse(
  readFileSync(path.join(__dirname, '..', 'fixtures', 'sarif', 'sarif-schema-2.1.0.json'), 'utf8'),
) as object;

/** A validator of SARIF 2.1.0 logs (its `errors` say what failed). */
export function sarifValidator() {
  const ajv = new Ajv({ allErrors: true, strict: false });
  addFormats(ajv);
  return ajv.compile(SCHEMA);
}
