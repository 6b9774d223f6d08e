import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'out/**',
      'node_modules/**',
      '.vscode-test/**',
      '.cache/**',
      'bench/results/**',
      'test/.tmp/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          // node:test's describe/it return promises the runner itself awaits.
          allowForKnownSafeCalls: [
            { from: 'package', package: 'node:test', name: ['describe', 'it', 'test', 'suite'] },
          ],
        },
      ],
      '@typescript-eslint/no-misused-promises': 'error',
      eqeqeq: ['error', 'always'],
      // A new event type (or any union member) must be handled wherever a switch has no default:
      // the reducer has none, so a new event type is flagged there; a `default:` is a deliberate
      // "ignore the rest" (renderers that print some events only).
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // Node's recursive mkdir never settles on some paths (/proc/self/x/y: ENOENT with the parent
    // there, retried for ever); the product makes folders with ensureDir (client/src/outputDir.ts).
    files: ['{protocol,client,daemon,cli,mcp,eval,extension,action,webview}/src/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector:
            "CallExpression:matches([callee.name=/^mkdir(Sync)?$/], [callee.property.name=/^mkdir(Sync)?$/]) Property[key.name='recursive']",
          message: 'a recursive mkdir can hang for ever: use ensureDir from client/src/outputDir.ts',
        },
      ],
    },
  },
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      parserOptions: { projectService: false, project: null },
      globals: { process: 'readonly', require: 'readonly', __dirname: 'readonly', console: 'readonly' },
    },
    rules: { ...tseslint.configs.disableTypeChecked.rules, '@typescript-eslint/no-require-imports': 'off' },
  },
);
