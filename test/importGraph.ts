/**
 * The source files (`SOURCE_FOLDERS`, read by the size and import tests) and their import graph,
 * file by file: every import, re-export, `import()` and `require()` resolved to the file it lands
 * on (relative paths and the `@roundtable/protocol` and `@roundtable/client` aliases, `index.ts`
 * included). Type-only imports count: a layer that needs another's types depends on it all the same.
 */
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import ts from 'typescript';

export const ROOT = path.resolve(__dirname, '..');
export const SOURCE_FOLDERS = [
  'protocol/src',
  'client/src',
  'daemon/src',
  'cli/src',
  'mcp/src',
  'eval/src',
  'extension/src',
  'webview/src',
  'action/src',
] as const;
const ALIASES: Record<string, string> = { '@roundtable/protocol': 'protocol/src', '@roundtable/client': 'client/src' };

/** A file (path from the repository root, `/`-separated) and the source files it imports. */
export type Graph = Map<string, string[]>;

export function sourceFiles(): string[] {
  return SOURCE_FOLDERS.flatMap((dir) =>
    readdirSync(path.join(ROOT, dir), { recursive: true, encoding: 'utf8' })
      .filter((f) => /\.tsx?$/.test(f) && !f.endsWith('.d.ts'))
      .map((f) => `${dir}/${f.split(path.sep).join('/')}`),
  ).sort();
}

function parse(file: string, text: string): ts.SourceFile {
  return ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
}

/** Every module specifier `text` names: static imports and re-exports, `import()` and `require()`. */
export function specifiers(file: string, text: string): string[] {
  const out: string[] = [];
  const visit = (n: ts.Node): void => {
    if ((ts.isImportDeclaration(n) || ts.isExportDeclaration(n)) && n.moduleSpecifier) {
      if (ts.isStringLiteral(n.moduleSpecifier)) out.push(n.moduleSpecifier.text);
    } else if (ts.isImportEqualsDeclaration(n) && ts.isExternalModuleReference(n.moduleReference)) {
      const e = n.moduleReference.expression;
      if (ts.isStringLiteral(e)) out.push(e.text);
    } else if (ts.isCallExpression(n) && n.arguments.length === 1) {
      const a = n.arguments[0];
      const callee = n.expression;
      const loads =
        callee.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(callee) && callee.text === 'require');
      if (loads && a && ts.isStringLiteralLike(a)) out.push(a.text);
    } else if (ts.isImportTypeNode(n) && ts.isLiteralTypeNode(n.argument) && ts.isStringLiteral(n.argument.literal)) {
      out.push(n.argument.literal.text);
    }
    ts.forEachChild(n, visit);
  };
  visit(parse(file, text));
  return out;
}

/** The source file `spec` names from `file`, or undefined for a package or a non-TypeScript file. */
export function resolve(file: string, spec: string, exists: (f: string) => boolean): string | undefined {
  const alias = Object.keys(ALIASES).find((a) => spec === a || spec.startsWith(`${a}/`));
  let base: string;
  if (alias) base = ALIASES[alias] + spec.slice(alias.length);
  else if (spec.startsWith('.')) base = path.posix.normalize(path.posix.join(path.posix.dirname(file), spec));
  else return undefined;
  const bare = base.replace(/\.js$/, '');
  return [`${bare}.ts`, `${bare}.tsx`, `${bare}/index.ts`, `${bare}/index.tsx`].find(exists);
}

/** The graph of `files` (read through `read`), edges kept only to files in the set. */
export function buildGraph(files: readonly string[], read: (f: string) => string): Graph {
  const known = new Set(files);
  const graph: Graph = new Map();
  for (const f of files) {
    const to = specifiers(f, read(f))
      .map((s) => resolve(f, s, (c) => known.has(c)))
      .filter((t): t is string => t !== undefined);
    graph.set(f, [...new Set(to)].sort());
  }
  return graph;
}

export function sourceGraph(): Graph {
  return buildGraph(sourceFiles(), (f) => readFileSync(path.join(ROOT, f), 'utf8'));
}

/**
 * Every import circle, each as a readable chain `a.ts -> b.ts -> a.ts`: one per strongly connected
 * component (Tarjan's), the shortest circle through its first file, and the other files of a
 * tangle named after it, so a tangle is reported once.
 */
export function cycles(graph: Graph): string[] {
  return components(graph).map((c) => {
    const chain = shortestCircle(graph, c[0]!, new Set(c));
    const rest = c.filter((f) => !chain.includes(f));
    return chain.join(' -> ') + (rest.length ? ` (tangled with ${rest.join(', ')})` : '');
  });
}

/** The strongly connected components of two or more files, or of one file importing itself. */
function components(graph: Graph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const connect = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) connect(w);
      if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, low.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    for (let w = ''; w !== v;) {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    }
    if (component.length > 1 || graph.get(v)?.includes(v)) out.push(component.sort());
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) connect(v);
  return out;
}

/** The shortest circle from `start` back to itself through `members` (breadth first). */
function shortestCircle(graph: Graph, start: string, members: Set<string>): string[] {
  const parent = new Map<string, string>([[start, '']]);
  for (const queue = [start]; queue.length > 0;) {
    const v = queue.shift()!;
    for (const w of graph.get(v) ?? []) {
      if (w === start) {
        const chain = [start];
        for (let u = v; u !== start; u = parent.get(u)!) chain.unshift(u);
        return [start, ...chain];
      }
      if (members.has(w) && !parent.has(w)) {
        parent.set(w, v);
        queue.push(w);
      }
    }
  }
  return [start];
}

/**
 * The names `file` exports that it only passes on from another module (`export … from`, or an
 * imported name exported again), as `name from spec`. A file's own declarations are not listed.
 */
export function reExports(file: string, text: string): string[] {
  const sf = parse(file, text);
  const imported = new Map<string, string>();
  const out: string[] = [];
  for (const s of sf.statements) {
    if (ts.isImportDeclaration(s) && ts.isStringLiteral(s.moduleSpecifier)) {
      const spec = s.moduleSpecifier.text;
      const clause = s.importClause;
      if (clause?.name) imported.set(clause.name.text, spec);
      const named = clause?.namedBindings;
      if (named && ts.isNamespaceImport(named)) imported.set(named.name.text, spec);
      if (named && ts.isNamedImports(named)) for (const e of named.elements) imported.set(e.name.text, spec);
    } else if (ts.isExportDeclaration(s)) {
      const from = s.moduleSpecifier && ts.isStringLiteral(s.moduleSpecifier) ? s.moduleSpecifier.text : undefined;
      if (!s.exportClause) out.push(`* from ${from}`);
      else if (ts.isNamespaceExport(s.exportClause)) out.push(`* as ${s.exportClause.name.text} from ${from}`);
      else
        for (const e of s.exportClause.elements) {
          const local = (e.propertyName ?? e.name).text;
          const source = from ?? imported.get(local);
          if (source !== undefined) out.push(`${e.name.text} from ${source}`);
        }
    } else if (ts.isExportAssignment(s) && ts.isIdentifier(s.expression) && imported.has(s.expression.text)) {
      out.push(`default from ${imported.get(s.expression.text)}`);
    }
  }
  return out;
}
