/** The webview side of postMessage; `acquireVsCodeApi` is injected by VS Code into every webview. */
export interface VsCodeApi<S> {
  postMessage(msg: unknown): void;
  getState(): S | undefined;
  setState(s: S): void;
}
declare function acquireVsCodeApi<S>(): VsCodeApi<S>;

export function vscodeApi<S>(): VsCodeApi<S> {
  return acquireVsCodeApi<S>();
}
