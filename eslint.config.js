import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  // manager-kit/index.d.ts re-exports dist/'s declarations, which exist only after a build: the package tests compile it.
  // manager-kit/client/ is Manager's React code, type-checked and built in Manager's client (test/package/manager-client.test.ts).
  {
    ignores: [
      'dist/**',
      'web/vendor/**',
      'node_modules/**',
      'coverage/**',
      'bench/results/**',
      'manager-kit/index.d.ts',
      'manager-kit/client/**',
      // Stand-ins for Manager's files, in its style (see their READMEs); the client one is type-checked and built by its own tsc and Vite.
      'test/support/manager/before/**',
      'test/support/manager-client/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      globals: { ...globals.node },
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      // Fakes and stores implement async interfaces; an async body keeps a throw a rejection.
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    files: ['test/**/*.ts'],
    rules: {
      // vitest's asymmetric matchers (expect.any, expect.stringMatching) are typed `any`.
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    files: ['**/*.cjs', '**/*.mjs', 'eslint.config.js', 'manager-kit/**/*.js'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    // The live page's script runs in the browser, served as it is.
    files: ['web/**/*.js'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: { ...tseslint.configs.disableTypeChecked.languageOptions, globals: { ...globals.browser }, sourceType: 'script' },
  },
  {
    // A test in Manager's own Jest suite, as the docs show it.
    files: ['examples/*.test.cjs'],
    languageOptions: { globals: { ...globals.jest } },
  },
  {
    // CommonJS: Manager's job scripts and models, and the kit's files that Manager runs as they are.
    files: ['**/*.cjs', 'manager-kit/**/*.js'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
