// The inline build embeds the wasm binary, so the bundled daemon needs no separate .wasm file.
declare module 'sql.js/dist/sql-wasm-inline.js' {
  import initSqlJs from 'sql.js';
  export default initSqlJs;
}
