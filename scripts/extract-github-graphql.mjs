// Writes test/fixtures/github/api.github.com.graphql: the fields of GitHub's published GraphQL
// schema that the action queries (action/src/comment.ts asks who its token is: `viewer`), each with
// its description, copied verbatim from `schema.graphql` of @octokit/graphql-schema (GitHub's public
// schema as Octokit publishes it), so the loopback api.github.com checks the action's query against
// GitHub's own types without the package in every install.
//
//   npm pack @octokit/graphql-schema@15.26.1 && tar -xzf octokit-graphql-schema-15.26.1.tgz package/schema.graphql
//   node scripts/extract-github-graphql.mjs package/schema.graphql 15.26.1
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** `Type.field` for every field the action's queries select. */
const FIELDS = ['Query.viewer', 'User.databaseId', 'User.login'];
const OUT = path.join(import.meta.dirname, '..', 'test', 'fixtures', 'github', 'api.github.com.graphql');

const [file, version] = process.argv.slice(2);
if (!file || !version) {
  console.error(
    'usage: node scripts/extract-github-graphql.mjs PATH/schema.graphql VERSION (see the comment at the top)',
  );
  process.exit(2);
}
const schema = readFileSync(file, 'utf8').split('\n');

/** The lines of `type NAME … {` up to its closing `}`. */
function typeBody(name) {
  const start = schema.findIndex((l) => l.startsWith(`type ${name} `) || l === `type ${name} {`);
  if (start < 0) throw new Error(`no type ${name} in ${file}`);
  const end = schema.indexOf('}', start);
  return schema.slice(start + 1, end);
}

/** A field's description block and its one-line definition (the fields queried take no arguments). */
function field(body, name) {
  const at = body.findIndex((l) => l.startsWith(`  ${name}: `));
  if (at < 0) throw new Error(`no field ${name} (or it takes arguments, which the stand-in does not read)`);
  let from = at;
  if (body[at - 1] === '  """') {
    from = at - 2;
    while (from > 0 && body[from] !== '  """') from--;
  }
  return body.slice(from, at + 1);
}

const byType = new Map();
for (const f of FIELDS) {
  const [type, name] = f.split('.');
  if (!byType.has(type)) byType.set(type, []);
  byType.get(type).push(field(typeBody(type), name));
}
const out = [
  `# GitHub's GraphQL schema, the fields the action queries: verbatim from schema.graphql of`,
  `# @octokit/graphql-schema ${version}, written by scripts/extract-github-graphql.mjs.`,
  '',
  ...[...byType].flatMap(([type, fields]) => [`type ${type} {`, fields.map((l) => l.join('\n')).join('\n\n'), '}', '']),
];
writeFileSync(OUT, out.join('\n'));
console.log(`wrote ${path.relative(process.cwd(), OUT)}: ${FIELDS.join(', ')}`);
