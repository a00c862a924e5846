// ESLint: typescript-eslint with type information. A promise nobody awaits or handles is an error
// (no-floating-promises, no-misused-promises): mark a deliberate one with `void`. Formatting is
// Prettier's job (npm run format), not ESLint's.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'resources/', 'node_modules/', '.tmp/', '**/*.js', '**/*.mjs', '**/*.cjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      // `_name` marks a value left out on purpose (rest destructuring that drops secrets, unused parameters).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      // `let x` read by a getter before its one assignment (built lazily) stays `let`.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      // Node-RED's node constructors keep `this` as `node` for the callbacks they register.
      '@typescript-eslint/no-this-alias': ['error', { allowedNames: ['node'] }],
      // An async function that does not await still returns a promise, as the interfaces it implements ask.
      '@typescript-eslint/require-await': 'off',
      // Vendor JSON values of unknown type are turned into text on purpose (ids, codes, messages).
      '@typescript-eslint/no-base-to-string': 'off',
    },
  },
  {
    // Tests read MQTT payloads and device answers as loose JSON and inspect them field by field, and load
    // Node-RED's own modules from paths resolved at run time.
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-require-imports': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    // The editor's scripts (tsconfig.editor.json): classic browser scripts, as Node-RED's editor has no module
    // loader; a namespace is the one global they add (NVR2MQTT), merged across files whatever order they load in.
    files: ['nodes/**/editor*.ts'],
    languageOptions: { sourceType: 'script', parserOptions: { projectService: false, project: './tsconfig.editor.json' } },
    // Their top-level names are globals the node files' inline registrations use.
    rules: {
      '@typescript-eslint/no-namespace': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { vars: 'local', argsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_' }],
    },
  },
);
