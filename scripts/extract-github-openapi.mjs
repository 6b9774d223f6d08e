// Writes test/fixtures/github/api.github.com.comments.json: the operations of GitHub's published
// OpenAPI description (github/rest-api-description, as @octokit/openapi ships it in
// generated/api.github.com.json) that the action calls, with every component they reach through a
// `$ref`, so the tests check the action's requests against GitHub's own description without the
// 29 MB package (404 MB unpacked) in every install. Operations and components are copied verbatim,
// in the description's order, so a regeneration from a newer version diffs as GitHub's changes.
//
//   npm pack @octokit/openapi@23.0.2 && tar -xzf octokit-openapi-23.0.2.tgz package/generated/api.github.com.json
//   node scripts/extract-github-openapi.mjs package/generated/api.github.com.json
//
// or, with the package installed for the moment (`npm install --no-save @octokit/openapi@23.0.2`),
// `node scripts/extract-github-openapi.mjs` with no argument reads it from node_modules.
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/** What the action calls (action/src/comment.ts): list, create and edit a pull request's comments. */
const OPERATIONS = ['issues/list-comments', 'issues/create-comment', 'issues/update-comment'];
/** Components read by the tests themselves: the comment the loopback api.github.com fills in. */
const EXTRA = ['#/components/examples/issue-comment'];
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const OUT = path.join(import.meta.dirname, '..', 'test', 'fixtures', 'github', 'api.github.com.comments.json');
const SOURCE = '@octokit/openapi/generated/api.github.com.json';

function source() {
  if (process.argv[2]) return process.argv[2];
  try {
    return createRequire(path.join(process.cwd(), 'package.json')).resolve(SOURCE);
  } catch {
    console.error(`${SOURCE} is not installed: pass the path of api.github.com.json (see the comment at the top)`);
    process.exit(2);
  }
}
const file = source();
const spec = JSON.parse(readFileSync(file, 'utf8'));

/** `#/components/<section>/<name>` of a local `$ref` (a deeper pointer keeps its whole component). */
function component(ref) {
  const parts = ref.replace(/^#\//, '').split('/');
  if (parts[0] !== 'components' || parts.length < 3) throw new Error(`unexpected $ref ${ref}`);
  const [section, name] = parts.slice(1, 3).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (spec.components?.[section]?.[name] === undefined) throw new Error(`dangling $ref ${ref}`);
  return [section, name];
}

const kept = new Map(); // "section\0name" → [section, name]
function walk(node) {
  if (Array.isArray(node)) return node.forEach(walk);
  if (typeof node !== 'object' || node === null) return;
  for (const [k, v] of Object.entries(node)) {
    if (k === '$ref' && typeof v === 'string') {
      if (!v.startsWith('#/')) throw new Error(`external $ref ${v}`);
      const [section, name] = component(v);
      const key = `${section}\0${name}`;
      if (!kept.has(key)) {
        kept.set(key, [section, name]);
        walk(spec.components[section][name]);
      }
    } else walk(v);
  }
}

const paths = {};
const found = new Set();
for (const [template, item] of Object.entries(spec.paths)) {
  for (const [method, op] of Object.entries(item)) {
    if (!METHODS.includes(method) || !OPERATIONS.includes(op.operationId)) continue;
    if (found.has(op.operationId)) throw new Error(`${op.operationId} is in the description twice`);
    found.add(op.operationId);
    // Path-level parameters apply to every operation of the path: keep them with it.
    if (!paths[template]) {
      paths[template] = item.parameters ? { parameters: item.parameters } : {};
      walk(item.parameters);
    }
    paths[template][method] = op;
    walk(op);
  }
}
const missing = OPERATIONS.filter((id) => !found.has(id));
if (missing.length) throw new Error(`not in ${file}: ${missing.join(', ')}`);
for (const ref of EXTRA) walk({ $ref: ref });

// Components in the description's own order, sections and names alike.
const components = {};
for (const [section, entries] of Object.entries(spec.components))
  for (const name of Object.keys(entries))
    if (kept.has(`${section}\0${name}`)) (components[section] ??= {})[name] = entries[name];

const extract = {
  openapi: spec.openapi,
  info: spec.info,
  'x-extract': {
    source: `${SOURCE} (@octokit/openapi ${spec.info.version}), from github/rest-api-description`,
    operations: OPERATIONS,
    regenerate: 'node scripts/extract-github-openapi.mjs [path/to/api.github.com.json]',
  },
  servers: spec.servers,
  paths,
  components,
};
writeFileSync(OUT, `${JSON.stringify(extract, null, 2)}\n`);
const counts = Object.entries(components).map(([s, e]) => `${Object.keys(e).length} ${s}`);
console.log(`${path.relative(process.cwd(), OUT)}: ${OPERATIONS.length} operations, ${counts.join(', ')}`);
