// Lint of the TypeScript sources and tests (npm test runs it; see README, Development). typescript-eslint's
// recommended rules, and the type-aware ones that catch what the compiler does not: a promise nobody awaits or
// handles, a promise where a callback's result is ignored.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', 'reports/**', '.data/**', 'services/api/test/generated/**', '**/*.js', '**/*.mjs', '**/*.cjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: {
        project: ['./tsconfig.test.json', './shared/tsconfig.json', './services/*/tsconfig.json'],
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true, caughtErrors: 'none' }],
      // a `let` assigned once, after closures that read it were made (a worker's probes before the worker starts)
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
    },
  },
  {
    // the tests read the API's JSON answers as `Record<string, any>` (fixtures), as a client would
    files: ['**/test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
