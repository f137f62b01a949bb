// @ts-check
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      'dist/',
      'packages/*/build/',
      'data/',
      '.tmp/',
      'coverage/',
      'bench/results/',
      '**/*.d.ts',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    // The service logs through pino; the CLI prints through src/cli/output.ts only.
    files: ['src/**/*.ts'],
    ignores: ['src/cli/output.ts'],
    rules: { 'no-console': 'error' },
  },
  {
    // Issue 32: a function is read in one sitting, so the parent stays a table of contents over named steps.
    files: ['src/**/*.ts', 'ingest/**/*.ts', 'src/web/static/**/*.js'],
    rules: { 'max-lines-per-function': ['error', { max: 100, skipBlankLines: true, skipComments: true }] },
  },
  {
    // The local addons' CommonJS loaders (packages/tcp-info, packages/thread-policy).
    files: ['packages/*/index.js'],
    languageOptions: { sourceType: 'commonjs', globals: globals.node },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // Plain JavaScript run by Node (bin/, scripts/, the worker entries, bench/startup.mjs).
    files: ['**/*.mjs'],
    languageOptions: { globals: globals.node },
  },
);
