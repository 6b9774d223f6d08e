/**
 * The findings of the last review in the Problems panel (the `roundtable` diagnostic collection),
 * and the quick fix "Open decision record <id>" on those that cite a record. A new review clears
 * them, and so does "Roundtable: Clear Review Findings".
 */
import * as vscode from 'vscode';
import { DIAGNOSTIC_SOURCE, type DiagnosticLevel, type FindingDiagnostic } from './reviewFindings';

const SEVERITY: Record<DiagnosticLevel, vscode.DiagnosticSeverity> = {
  error: vscode.DiagnosticSeverity.Error,
  warning: vscode.DiagnosticSeverity.Warning,
  information: vscode.DiagnosticSeverity.Information,
  hint: vscode.DiagnosticSeverity.Hint,
};

/** To the end of the last line, whatever its length (VS Code clamps a range to the document). */
const LINE_END = 100_000;

/** One finding as a VS Code diagnostic, on `root`'s file. */
export function toDiagnostic(root: vscode.Uri, d: FindingDiagnostic): vscode.Diagnostic {
  const diag = new vscode.Diagnostic(
    new vscode.Range(d.startLine, 0, d.endLine, LINE_END),
    d.message,
    SEVERITY[d.level],
  );
  diag.source = DIAGNOSTIC_SOURCE;
  if (d.record) {
    const record = vscode.Uri.joinPath(root, d.record.path);
    // The code links to the record: a click on it in the Problems panel or the hover opens it.
    diag.code = { value: d.code, target: record };
    diag.relatedInformation = [
      new vscode.DiagnosticRelatedInformation(
        new vscode.Location(record, new vscode.Position(0, 0)),
        `Decision record ${d.record.id}`,
      ),
    ];
  } else diag.code = d.code;
  return diag;
}

export class ReviewDiagnostics implements vscode.CodeActionProvider, vscode.Disposable {
  static readonly providedCodeActionKinds = [vscode.CodeActionKind.QuickFix];
  private readonly collection = vscode.languages.createDiagnosticCollection('roundtable');
  private readonly registration = vscode.languages.registerCodeActionsProvider({ scheme: 'file' }, this, {
    providedCodeActionKinds: ReviewDiagnostics.providedCodeActionKinds,
  });

  /** Replaces whatever the last review left with these findings. */
  show(root: vscode.Uri, findings: readonly FindingDiagnostic[]): void {
    const byFile = new Map<string, vscode.Diagnostic[]>();
    for (const f of findings) byFile.set(f.file, [...(byFile.get(f.file) ?? []), toDiagnostic(root, f)]);
    this.collection.clear();
    this.collection.set([...byFile].map(([file, diags]) => [vscode.Uri.joinPath(root, file), diags]));
  }

  clear(): void {
    this.collection.clear();
  }

  /** Every finding shown now, as VS Code holds them (for the tests and the summary). */
  all(): [vscode.Uri, readonly vscode.Diagnostic[]][] {
    const out: [vscode.Uri, readonly vscode.Diagnostic[]][] = [];
    this.collection.forEach((uri, diags) => void out.push([uri, diags]));
    return out;
  }

  provideCodeActions(
    _doc: vscode.TextDocument,
    _range: vscode.Range | vscode.Selection,
    context: vscode.CodeActionContext,
  ): vscode.CodeAction[] {
    return context.diagnostics.flatMap((d) => {
      const record = d.source === DIAGNOSTIC_SOURCE ? d.relatedInformation?.[0]?.location.uri : undefined;
      if (!record || typeof d.code !== 'object') return [];
      const action = new vscode.CodeAction(`Open decision record ${d.code.value}`, vscode.CodeActionKind.QuickFix);
      action.command = { command: 'vscode.open', title: action.title, arguments: [record] };
      action.diagnostics = [d];
      action.isPreferred = true;
      return [action];
    });
  }

  dispose(): void {
    this.registration.dispose();
    this.collection.dispose();
  }
}
