/**
 * GitHub's GraphQL schema, cut down to the fields the action queries
 * (test/fixtures/github/api.github.com.graphql, written by scripts/extract-github-graphql.mjs from
 * @octokit/graphql-schema), as a checker for the loopback api.github.com: a query must select only
 * fields the schema has, on the types it gives them, with a selection on every object and none on
 * a scalar. The stand-in reads plain selections (no arguments, aliases, variables or fragments:
 * the action's query has none); anything else is reported, not guessed at.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

const EXTRACT = path.join(__dirname, '..', 'fixtures', 'github', 'api.github.com.graphql');
const SCALARS = new Set(['String', 'Int', 'Float', 'Boolean', 'ID']);

/** A checked selection: each field with its own selection (undefined for a scalar). */
export interface Selection {
  [field: string]: Selection | undefined;
}

/** Field types by type and field name (`User` → `login` → `String!`). */
function schemaTypes(): Map<string, Map<string, string>> {
  const types = new Map<string, Map<string, string>>();
  let current: Map<string, string> | undefined;
  for (const line of readFileSync(EXTRACT, 'utf8').split('\n')) {
    const type = /^type (\w+) \{$/.exec(line);
    if (type) types.set(type[1] ?? '', (current = new Map<string, string>()));
    const field = /^ {2}(\w+): (\S+)$/.exec(line);
    if (field && current) current.set(field[1] ?? '', field[2] ?? '');
    if (line === '}') current = undefined;
  }
  return types;
}

const TYPES = schemaTypes();

/** The query's selection on `Query`, or what is wrong with it. */
export function checkQuery(query: string): { selection?: Selection; errors: string[] } {
  const errors: string[] = [];
  const tokens = query.match(/[A-Za-z_]\w*|[{}]|\S/g) ?? [];
  let at = 0;
  if (tokens[at] === 'query') at++;
  if (tokens[at] !== '{' && /^[A-Za-z_]/.test(tokens[at] ?? '')) at++; // an operation name
  const select = (type: string): Selection | undefined => {
    if (tokens[at] !== '{') {
      errors.push(`expected a selection on ${type}, found ${tokens[at] ?? 'the end'}`);
      return undefined;
    }
    at++;
    const out: Selection = {};
    while (at < tokens.length && tokens[at] !== '}') {
      const name = tokens[at++] ?? '';
      if (!/^[A-Za-z_]\w*$/.test(name)) {
        errors.push(`the stand-in reads plain selections only, not "${name}"`);
        return undefined;
      }
      const declared = TYPES.get(type)?.get(name);
      if (!declared) {
        errors.push(`${type}.${name} is not in the extract (scripts/extract-github-graphql.mjs lists the fields)`);
        return undefined;
      }
      const named = declared.replace(/[[\]!]/g, '');
      if (SCALARS.has(named)) {
        if (tokens[at] === '{') errors.push(`${type}.${name} is a ${named}: it takes no selection`);
        out[name] = undefined;
      } else out[name] = select(named);
      if (errors.length) return undefined;
    }
    if (tokens[at] !== '}') errors.push(`the selection on ${type} is not closed`);
    at++;
    return out;
  };
  const selection = select('Query');
  if (!errors.length && at !== tokens.length) errors.push(`text after the query: ${tokens.slice(at).join(' ')}`);
  return errors.length ? { errors } : { selection, errors };
}
