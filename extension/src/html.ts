import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';

/**
 * Webview HTML with a strict Content Security Policy: no inline script, scripts only from the
 * bundle with a per-load nonce, styles from the bundle (plus the inline styles that the
 * vscode-elements web components set on their own shadow roots), no network at all.
 */
export function webviewHtml(
  webview: vscode.Webview,
  extensionUri: vscode.Uri,
  opts: {
    script: string;
    title: string;
    body: string;
    /** Stylesheets in media/; room.css when not given. */ styles?: string[];
  },
): string {
  const nonce = randomBytes(16).toString('base64');
  const asset = (...p: string[]) => webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, ...p)).toString();
  const csp = [
    "default-src 'none'",
    `img-src ${webview.cspSource} data:`,
    `font-src ${webview.cspSource}`,
    `style-src ${webview.cspSource} 'unsafe-inline'`,
    `script-src 'nonce-${nonce}'`,
  ].join('; ');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
${(opts.styles ?? ['room.css']).map((f) => `<link rel="stylesheet" href="${asset('media', f)}">`).join('\n')}
<title>${opts.title}</title>
</head>
<body>
${opts.body}
<script nonce="${nonce}" src="${asset('dist', 'webview', opts.script)}"></script>
</body>
</html>`;
}
