/**
 * The escaping Markdown builder lives in protocol/src/markdown.ts so the extension (which writes the
 * MADR record) and the daemon (minutes, report) use the one definition.
 */
export * from '@roundtable/protocol/markdown';
