/**
 * GitHub's published OpenAPI description of its REST API (github/rest-api-description, as
 * `@octokit/openapi` 23.0.2 ships it in generated/api.github.com.json), cut down to the operations
 * the action calls and the components they reach (test/fixtures/github/api.github.com.comments.json,
 * written by scripts/extract-github-openapi.mjs), as a checker for the loopback stand-in of
 * api.github.com: each request must be an operation of the extract (method and path template),
 * with path and query parameters of the declared types, and a JSON body its schema accepts; each
 * response the stand-in sends must match the response schema of its status. Validation by ajv
 * (JSON Schema); OpenAPI 3.0's `nullable` is turned into a `null` type first, as JSON Schema has no
 * such keyword.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import Ajv, { type ValidateFunction } from 'ajv';

const SPEC_ID = 'https://api.github.com/openapi.json';
const EXTRACT = path.join(__dirname, '..', 'fixtures', 'github', 'api.github.com.comments.json');

type Json = Record<string, unknown>;

interface Operation {
  operationId: string;
  template: string;
  parameters: { name: string; in: string; required?: boolean; schema: Json }[];
  body?: { required: boolean; schema: Json };
  responses: Record<string, Json>;
}

export interface CheckedRequest {
  operationId?: string;
  template?: string;
  params: Record<string, string>;
  query: Record<string, string>;
  errors: string[];
}

/** `nullable: true` → the type also allows null; `$ref`s into the description made absolute. */
function jsonSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(jsonSchema);
  if (typeof node !== 'object' || node === null) return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === '$ref' && typeof v === 'string' && v.startsWith('#/')) out[k] = `${SPEC_ID}${v}`;
    else if (k !== 'nullable') out[k] = jsonSchema(v);
  }
  const n = node as Json;
  if (n.nullable === true) {
    if (typeof n.type === 'string') out.type = [n.type, 'null'];
    else return { anyOf: [out, { type: 'null' }] };
  }
  return out;
}

function pointer(spec: Json, ref: string): Json {
  const parts = ref.replace(/^#\//, '').split('/');
  let node: unknown = spec;
  for (const p of parts) node = (node as Json)[p.replace(/~1/g, '/').replace(/~0/g, '~')];
  return node as Json;
}

const deref = (spec: Json, node: Json): Json => (typeof node.$ref === 'string' ? pointer(spec, node.$ref) : node);

class GitHubDescription {
  private readonly ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false, validateSchema: false });
  private readonly operations: { method: string; pattern: RegExp; names: string[]; literal: number; op: Operation }[] =
    [];
  private readonly compiled = new Map<Json, ValidateFunction>();
  readonly version: string;

  constructor(spec: Json) {
    this.version = String((spec.info as Json).version);
    const paths = spec.paths as Record<string, Record<string, Json>>;
    for (const [template, item] of Object.entries(paths))
      for (const [method, raw] of Object.entries(item)) {
        if (!['get', 'post', 'patch', 'put', 'delete'].includes(method)) continue;
        const names: string[] = [];
        const source = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{(\w+)\}/g, (_m, name: string) => {
          names.push(name);
          return '([^/]+)';
        });
        const content = raw.requestBody
          ? (deref(spec, raw.requestBody as Json).content as Json | undefined)
          : undefined;
        const json = content?.['application/json'] as Json | undefined;
        const op: Operation = {
          operationId: String(raw.operationId),
          template,
          parameters: ((raw.parameters ?? []) as Json[]).map((p) => deref(spec, p) as Operation['parameters'][number]),
          ...(json
            ? { body: { required: Boolean((raw.requestBody as Json).required), schema: json.schema as Json } }
            : {}),
          responses: Object.fromEntries(
            Object.entries(raw.responses as Record<string, Json>).map(([s, r]) => [s, deref(spec, r)]),
          ),
        };
        const literal = template.split('/').filter((s) => s && !s.startsWith('{')).length;
        this.operations.push({ method: method.toUpperCase(), pattern: new RegExp(`^${source}$`), names, literal, op });
      }
    // Only the components: every `$ref` points there; inline schemas are compiled one by one.
    this.ajv.addSchema({ components: jsonSchema(spec.components) }, SPEC_ID);
  }

  private validator(schema: Json): ValidateFunction {
    let v = this.compiled.get(schema);
    if (!v) {
      v = this.ajv.compile(jsonSchema(schema) as Json);
      this.compiled.set(schema, v);
    }
    return v;
  }

  private errorsOf(schema: Json, value: unknown, where: string): string[] {
    const v = this.validator(schema);
    return v(value) ? [] : (v.errors ?? []).map((e) => `${where}${e.instancePath} ${e.message ?? 'is invalid'}`);
  }

  /** A path or query parameter's text as the type its schema declares (GitHub reads them so). */
  private static typed(schema: Json, text: string): unknown {
    if ((schema.type === 'integer' || schema.type === 'number') && /^-?\d+(\.\d+)?$/.test(text)) return Number(text);
    if (schema.type === 'boolean' && (text === 'true' || text === 'false')) return text === 'true';
    return text;
  }

  /** Checks a request (path relative to the API root) against the description. */
  request(method: string, url: URL, body: string, contentType: string | undefined): CheckedRequest {
    const matches = this.operations
      .filter((o) => o.method === method && o.pattern.test(url.pathname))
      .sort((a, b) => b.literal - a.literal);
    const found = matches[0];
    const query = Object.fromEntries(url.searchParams);
    if (!found)
      return {
        params: {},
        query,
        errors: [
          `${method} ${url.pathname} is no operation of the extract (scripts/extract-github-openapi.mjs lists them)`,
        ],
      };
    const { op } = found;
    const values = found.pattern.exec(url.pathname)?.slice(1) ?? [];
    const params = Object.fromEntries(found.names.map((n, i) => [n, decodeURIComponent(values[i] ?? '')]));
    const errors: string[] = [];
    for (const p of op.parameters) {
      const text = p.in === 'path' ? params[p.name] : p.in === 'query' ? query[p.name] : undefined;
      if (text === undefined) {
        if (p.required && p.in !== 'header') errors.push(`${op.operationId}: ${p.in} parameter ${p.name} is missing`);
        continue;
      }
      errors.push(...this.errorsOf(p.schema, GitHubDescription.typed(p.schema, text), `${op.operationId} ${p.name}`));
    }
    const declared = new Set(op.parameters.filter((p) => p.in === 'query').map((p) => p.name));
    for (const k of Object.keys(query))
      if (!declared.has(k)) errors.push(`${op.operationId}: query parameter ${k} is not in the description`);
    if (op.body) {
      if (!body && op.body.required) errors.push(`${op.operationId}: the request has no body`);
      else if (body) {
        if (!contentType?.startsWith('application/json'))
          errors.push(`${op.operationId}: body is not JSON (${contentType})`);
        let parsed: unknown;
        try {
          parsed = JSON.parse(body);
          errors.push(...this.errorsOf(op.body.schema, parsed, `${op.operationId} body`));
        } catch {
          errors.push(`${op.operationId}: the body is not valid JSON`);
        }
      }
    } else if (body) errors.push(`${op.operationId}: the operation takes no body`);
    return { operationId: op.operationId, template: op.template, params, query, errors };
  }

  /** Checks a response the stand-in sends for `operationId` against the description. */
  response(operationId: string, status: number, body: unknown): string[] {
    const found = this.operations.find((o) => o.op.operationId === operationId);
    if (!found) return [`no operation ${operationId}`];
    const r = found.op.responses[String(status)];
    if (!r) return [`${operationId} has no documented ${status} response`];
    const schema = ((r.content as Json | undefined)?.['application/json'] as Json | undefined)?.schema as
      Json | undefined;
    return schema ? this.errorsOf(schema, body, `${operationId} ${status} response`) : [];
  }

  /** The example the description gives for a component (e.g. `issue-comment`). */
  static example(spec: Json, name: string): Json {
    return ((spec.components as Json).examples as Record<string, Json>)[name]?.value as Json;
  }
}

let loaded: { description: GitHubDescription; spec: Json } | undefined;

/** The extract of the description, parsed once per test process. */
export function githubDescription(): { description: GitHubDescription; example: (name: string) => Json } {
  if (!loaded) {
    const spec = JSON.parse(readFileSync(EXTRACT, 'utf8')) as Json;
    loaded = { description: new GitHubDescription(spec), spec };
  }
  const { spec } = loaded;
  return { description: loaded.description, example: (name) => structuredClone(GitHubDescription.example(spec, name)) };
}
