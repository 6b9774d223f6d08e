/**
 * A loopback stand-in for api.github.com (the action reaches it through GITHUB_API_URL) holding one
 * pull request's comments. Every request is checked against GitHub's published OpenAPI description
 * (githubOpenApi.ts) and every response it sends too; what breaks the description is answered 400
 * and listed in `violations`, so a test asserts there are none. Comments are the description's own
 * `issue-comment` example with their ids, bodies and authors filled in; lists are paginated with a
 * `Link` header as GitHub's are (`<…?page=2>; rel="next", <…?page=5>; rel="last"`). `POST /graphql`
 * answers the one question the action asks there, who its token is (`viewer`), each query checked
 * against GitHub's GraphQL schema (githubGraphql.ts).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { checkQuery, type Selection } from './githubGraphql';
import { githubDescription } from './githubOpenApi';

type Json = Record<string, unknown>;

export interface ApiRequest {
  method: string;
  operationId: string;
  params: Record<string, string>;
  query: Record<string, string>;
  body?: Json;
}

export interface GitHubApi {
  /** The API root, for GITHUB_API_URL. */
  url: string;
  requests: ApiRequest[];
  comments: Json[];
  violations: string[];
  close(): Promise<void>;
}

/** Who a token is, as the REST API shows a comment's author (`user`). */
export interface GitHubUser {
  login: string;
  id: number;
  type: 'Bot' | 'User';
}

/**
 * The identity the workflow's GITHUB_TOKEN posts as: `github-actions[bot]`, user id 41898282
 * (https://api.github.com/users/github-actions[bot], as anthropics/claude-code-action#960 and #651
 * quote it). GraphQL's `viewer` gives an installation token's bot with the same login and its
 * user id as `databaseId` (fullsend-ai/fullsend#1953: `fullsend-ai-coder[bot]`, 278716306; the
 * `[bot]` login is what marocchino/sticky-pull-request-comment strips to match GraphQL authors).
 */
export const ACTIONS_BOT: GitHubUser = { login: 'github-actions[bot]', id: 41898282, type: 'Bot' };

/** A person with a personal access token: octocat as the REST API shows them. */
export const OCTOCAT: GitHubUser = { login: 'octocat', id: 583231, type: 'User' };

/**
 * GraphQL's refusal as GitHub words it (`type`, `path`, `extensions.saml_failure`, `locations`,
 * `message`: fpicalausa/remove-stale-branches#49); `viewer` is non-null, so `data` is null.
 */
const VIEWER_REFUSED = {
  data: null,
  errors: [
    {
      type: 'FORBIDDEN',
      path: ['viewer'],
      extensions: { saml_failure: false },
      locations: [{ line: 1, column: 9 }],
      message: 'Resource not accessible by integration',
    },
  ],
};

/**
 * A 403 as GitHub sends it to a `pull_request` run from a fork, whose token is read-only
 * (jayamanikharyono/airflow-dag-action#23, peter-evans/create-or-update-comment#188).
 */
const READ_ONLY = {
  message: 'Resource not accessible by integration',
  documentation_url: 'https://docs.github.com/rest/issues/comments#create-an-issue-comment',
  status: '403',
};

/** GitHub's answer to a body over 65536 characters (suzuki-shunsuke/github-comment#124). */
const TOO_LONG = {
  message: 'Validation Failed',
  errors: [
    {
      resource: 'IssueComment',
      code: 'custom',
      field: 'body',
      message: 'body is too long (maximum is 65536 characters)',
    },
  ],
  documentation_url: 'https://docs.github.com/rest/issues/comments#create-an-issue-comment',
};

export interface GitHubApiOptions {
  owner: string;
  repo: string;
  issue: number;
  /** The token requests must carry. */
  token: string;
  /** Comments by other people already on the pull request (more than 100 spill onto page 2). */
  others?: number;
  /** Refuse writes with 403, as for a fork's read-only token. */
  readOnly?: boolean;
  /** Who the token is (default: the workflow's GITHUB_TOKEN, github-actions[bot]); its comments are by it. */
  identity?: GitHubUser;
  /** Comments already on the pull request after the others', each by its author. */
  existing?: { body: string; user: GitHubUser }[];
  /** GraphQL refuses to say who the token is. */
  viewerRefused?: boolean;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (text += c));
    req.on('end', () => resolve(text));
    req.on('error', reject);
  });
}

export async function startGitHubApi(o: GitHubApiOptions): Promise<GitHubApi> {
  const { description, example } = githubDescription();
  const requests: ApiRequest[] = [];
  const comments: Json[] = [];
  const violations: string[] = [];
  let nextId = 1_000_000_001;
  let base = '';

  const identity = o.identity ?? ACTIONS_BOT;
  const comment = (body: string, user: GitHubUser): Json => {
    const c = example('issue-comment');
    const id = nextId++;
    const repoApi = `${base}/repos/${o.owner}/${o.repo}`;
    return {
      ...c,
      id,
      node_id: `IC_kwDO${id}`,
      url: `${repoApi}/issues/comments/${id}`,
      html_url: `https://github.com/${o.owner}/${o.repo}/pull/${o.issue}#issuecomment-${id}`,
      issue_url: `${repoApi}/issues/${o.issue}`,
      body,
      user: { ...(c.user as Json), ...user, url: `${base}/users/${user.login}` },
      author_association: user.type === 'Bot' ? 'NONE' : 'CONTRIBUTOR',
    };
  };

  const send = (res: ServerResponse, operationId: string, status: number, body: unknown, headers: Json = {}): void => {
    violations.push(...description.response(operationId, status, body));
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
    res.end(JSON.stringify(body));
  };

  const list = (res: ServerResponse, r: ApiRequest): void => {
    const perPage = Math.min(Number(r.query.per_page ?? 30), 100);
    const page = Number(r.query.page ?? 1);
    const last = Math.max(1, Math.ceil(comments.length / perPage));
    const at = (p: number): string =>
      `<${base}/repos/${o.owner}/${o.repo}/issues/${o.issue}/comments?per_page=${perPage}&page=${p}>`;
    const links = page < last ? { link: `${at(page + 1)}; rel="next", ${at(last)}; rel="last"` } : {};
    send(res, r.operationId, 200, comments.slice((page - 1) * perPage, page * perPage), links);
  };

  const write = (res: ServerResponse, r: ApiRequest): void => {
    const text = typeof r.body?.body === 'string' ? r.body.body : '';
    if (o.readOnly) return send(res, r.operationId, 403, READ_ONLY);
    if (text.length > 65_536) return send(res, r.operationId, 422, TOO_LONG);
    if (r.operationId === 'issues/create-comment') {
      const c = comment(text, identity);
      comments.push(c);
      return send(res, r.operationId, 201, c, { location: String(c.url) });
    }
    const c = comments.find((x) => String(x.id) === r.params.comment_id);
    if (!c) return send(res, r.operationId, 422, { message: 'Not Found', documentation_url: 'x' });
    Object.assign(c, { body: text, updated_at: new Date().toISOString().replace(/\.\d+Z$/, 'Z') });
    send(res, r.operationId, 200, c);
  };

  /** The data a checked selection asks for: the viewer is the token's identity. */
  const resolve = (selection: Selection): Json => {
    const viewer: Json = { login: identity.login, databaseId: identity.id };
    const out: Json = {};
    for (const [field, sub] of Object.entries(selection)) {
      if (field !== 'viewer' || !sub) {
        violations.push(`the stand-in does not serve Query.${field}`);
        continue;
      }
      out.viewer = Object.fromEntries(Object.keys(sub).map((k) => [k, viewer[k]]));
      for (const k of Object.keys(sub)) if (!(k in viewer)) violations.push(`the stand-in does not serve User.${k}`);
    }
    return out;
  };

  const graphql = (req: IncomingMessage, res: ServerResponse, text: string): void => {
    const errors: string[] = [];
    if (req.headers.authorization !== `token ${o.token}`) errors.push('the GraphQL request carries the wrong token');
    if (!String(req.headers['content-type']).startsWith('application/json')) errors.push('GraphQL takes a JSON body');
    let body: Json = {};
    try {
      body = JSON.parse(text) as Json;
    } catch {
      errors.push('the GraphQL body is not JSON');
    }
    const extra = Object.keys(body).filter((k) => !['query', 'variables', 'operationName'].includes(k));
    if (extra.length) errors.push(`the GraphQL body has ${extra.join(', ')}`);
    const checked = typeof body.query === 'string' ? checkQuery(body.query) : { errors: ['no GraphQL query'] };
    errors.push(...checked.errors);
    requests.push({ method: 'POST', operationId: 'graphql', params: {}, query: {}, body });
    res.writeHead(errors.length ? 400 : 200, { 'content-type': 'application/json; charset=utf-8' });
    if (errors.length) {
      violations.push(...errors);
      res.end(JSON.stringify({ message: 'Problems parsing JSON' }));
    } else res.end(JSON.stringify(o.viewerRefused ? VIEWER_REFUSED : { data: resolve(checked.selection ?? {}) }));
  };

  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', base);
      const text = await readBody(req);
      if (url.pathname === '/graphql' && req.method === 'POST') return graphql(req, res, text);
      const checked = description.request(req.method ?? 'GET', url, text, req.headers['content-type']);
      if (req.headers.authorization !== `token ${o.token}`) checked.errors.push('the request carries the wrong token');
      const r: ApiRequest = {
        method: req.method ?? 'GET',
        operationId: checked.operationId ?? '',
        params: checked.params,
        query: checked.query,
        ...(text ? { body: JSON.parse(text) as Json } : {}),
      };
      requests.push(r);
      const wrongIssue = checked.params.issue_number !== undefined && checked.params.issue_number !== String(o.issue);
      if (checked.errors.length || wrongIssue) {
        violations.push(
          ...checked.errors,
          ...(wrongIssue ? [`issue ${checked.params.issue_number} is not the pull request`] : []),
        );
        res.writeHead(400, { 'content-type': 'application/json' }).end('{"message":"Bad request"}');
      } else if (r.operationId === 'issues/list-comments') list(res, r);
      else if (r.operationId === 'issues/create-comment' || r.operationId === 'issues/update-comment') write(res, r);
      else {
        violations.push(`the stand-in does not serve ${r.operationId}`);
        res.writeHead(404).end();
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  for (let i = 0; i < (o.others ?? 0); i++)
    comments.push(comment(`LGTM ${i}`, { login: `person${i}`, id: 100 + i, type: 'User' }));
  for (const c of o.existing ?? []) comments.push(comment(c.body, c.user));
  return {
    url: base,
    requests,
    comments,
    violations,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
