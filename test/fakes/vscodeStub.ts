/**
 * Just enough of the `vscode` module for extension code that writes files to run under node:test:
 * a workspace folder on disk (its settings, trusted), its file system through node's, events, and
 * windows that answer nothing. Every other name is a harmless stand-in, so modules that merely
 * mention a view or a command load. Install it before the extension code is required.
 */
import { promises as fs } from 'node:fs';
import Module from 'node:module';
import * as path from 'node:path';

interface StubUri {
  scheme: 'file';
  fsPath: string;
  path: string;
  toString(): string;
  with(change: { path?: string }): StubUri;
}

function uriOf(fsPath: string): StubUri {
  return {
    scheme: 'file',
    fsPath,
    path: fsPath.split(path.sep).join('/'),
    toString: () => `file://${fsPath}`,
    with: (change) => uriOf(change.path ?? fsPath),
  };
}

class EventEmitter<T> {
  private readonly listeners = new Set<(e: T) => unknown>();
  readonly event = (fn: (e: T) => unknown): { dispose(): void } => {
    this.listeners.add(fn);
    return { dispose: () => this.listeners.delete(fn) };
  };
  fire(e: T): void {
    for (const fn of [...this.listeners]) fn(e);
  }
  dispose(): void {
    this.listeners.clear();
  }
}

/** Anything: callable, constructible, every property another stand-in, awaitable to nothing. */
function anything(): unknown {
  const target = function () {
    return undefined;
  };
  return new Proxy(target, {
    get: (_t, key) => (key === 'then' ? undefined : key === Symbol.toPrimitive ? () => '' : anything()),
    apply: () => anything(),
    construct: () => anything() as object,
  });
}

/** Installs the stub for a workspace folder and its `roundtable.*` settings; returns what it was asked. */
export function installVscodeStub(workspace: string, settings: Record<string, unknown>): { asked: string[] } {
  const asked: string[] = [];
  const quiet = (what: string) => (message: string) => {
    asked.push(`${what}: ${message}`);
    return Promise.resolve(undefined);
  };
  const vscode: Record<string, unknown> = {
    version: 'stub',
    EventEmitter,
    Uri: { file: uriOf, joinPath: (u: StubUri, ...parts: string[]) => uriOf(path.join(u.fsPath, ...parts)) },
    ViewColumn: { Active: -1, Beside: -2, One: 1 },
    FileType: { File: 1, Directory: 2, SymbolicLink: 64 },
    workspace: {
      workspaceFolders: [{ uri: uriOf(workspace), name: 'ws', index: 0 }],
      isTrusted: true,
      getConfiguration: () => ({ get: (key: string) => settings[key] }),
      asRelativePath: (u: StubUri) => path.relative(workspace, u.fsPath),
      openTextDocument: () => Promise.resolve({}),
      fs: {
        stat: async (u: StubUri) => {
          const st = await fs.lstat(u.fsPath);
          return { type: (st.isFile() ? 1 : st.isDirectory() ? 2 : 0) | (st.isSymbolicLink() ? 64 : 0) };
        },
        createDirectory: (u: StubUri) => fs.mkdir(u.fsPath, { recursive: true }),
        readDirectory: async (u: StubUri) =>
          (await fs.readdir(u.fsPath, { withFileTypes: true })).map((d) => [d.name, d.isDirectory() ? 2 : 1]),
        readFile: async (u: StubUri) => new Uint8Array(await fs.readFile(u.fsPath)),
        writeFile: (u: StubUri, bytes: Uint8Array) => fs.writeFile(u.fsPath, bytes),
      },
    },
    window: {
      showInformationMessage: quiet('info'),
      showWarningMessage: quiet('warning'),
      showErrorMessage: quiet('error'),
      showTextDocument: () => Promise.resolve(undefined),
    },
    extensions: { getExtension: () => undefined },
    commands: { executeCommand: () => Promise.resolve(undefined) },
  };
  const stub = new Proxy(vscode, { get: (t, key: string) => (key in t ? t[key] : anything()) });
  const loader = Module as unknown as { _load: (request: string, ...rest: unknown[]) => unknown };
  const load = loader._load;
  loader._load = function (request: string, ...rest: unknown[]) {
    return request === 'vscode' ? stub : load.call(this, request, ...rest);
  };
  return { asked };
}
