// ESLint flat config: type-aware TypeScript rules, Vue, and the layering of DESIGN §5 as import rules.
import js from '@eslint/js'
import globals from 'globals'
import tseslint from 'typescript-eslint'
import pluginVue from 'eslint-plugin-vue'
import vueParser from 'vue-eslint-parser'

const noElectron = {
  name: 'electron',
  message: 'Only electron/main and electron/preload may import electron (DESIGN §5).',
}
const noDexie = { name: 'dexie', message: 'Only src/db may import Dexie (DESIGN §5).' }

export default tseslint.config(
  {
    ignores: [
      'out/**',
      'node_modules/**',
      'dist/**',
      'coverage/**',
      'test-results/**',
      'playwright-report/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  ...pluginVue.configs['flat/recommended'],
  {
    languageOptions: {
      parser: vueParser,
      parserOptions: {
        parser: tseslint.parser,
        projectService: true,
        tsconfigRootDir: import.meta.dirname,
        extraFileExtensions: ['.vue'],
      },
      globals: { ...globals.node, ...globals.browser },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'vue/multi-word-component-names': 'off',
      'vue/max-attributes-per-line': 'off',
      'vue/singleline-html-element-content-newline': 'off',
      'vue/html-self-closing': 'off',
      'vue/html-indent': 'off',
      'vue/html-closing-bracket-newline': 'off',
      'vue/multiline-html-element-content-newline': 'off',
      'no-restricted-imports': ['error', { paths: [noElectron, noDexie] }],
    },
  },
  {
    files: ['electron/main/**', 'electron/preload/**', 'tests/unit/electron/main/**', 'tests/e2e/**'],
    rules: { 'no-restricted-imports': ['error', { paths: [noDexie] }] },
  },
  {
    files: ['src/db/**', 'tests/unit/src/db/**'],
    rules: { 'no-restricted-imports': ['error', { paths: [noElectron] }] },
  },
  {
    // Layers never import upward: shared ← services ← main; the renderer never imports the main process.
    files: ['src/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [noElectron],
          patterns: [
            {
              group: [
                '**/electron/main/**',
                '**/electron/services/**',
                '**/electron/web/**',
                '**/electron/sandbox/**',
              ],
              message: 'The renderer reaches the platform only through src/platform and electron/shared.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['electron/shared/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [noElectron, noDexie],
          patterns: [
            {
              group: ['node:*', '../main/**', '../services/**', '../web/**', '../sandbox/**'],
              message: 'electron/shared is pure TypeScript: no node, electron or host imports.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['electron/services/**', 'electron/sandbox/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [noElectron, noDexie],
          patterns: [
            {
              group: ['../main/**', '../../main/**', '../web/**', '../../web/**'],
              message: 'services and sandbox never import a host.',
            },
          ],
        },
      ],
    },
  },
  {
    // Views and components reach the cache only through stores (issue 23): no runtime import of src/db or
    // of the Dexie-backed sync modules. Type imports are allowed (the record types live in src/db for now).
    // Its own rule name, so the layer rules' no-restricted-imports blocks above neither replace nor drop it.
    files: ['src/views/**', 'src/components/**'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/db', '**/db/**', '**/sync/cache-sync-store', '**/sync/quarantine-refetch'],
              allowTypeImports: true,
              message: 'Views and components reach the cache only through stores (src/stores).',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.mjs', '**/*.js', '**/*.cjs'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    // electron-builder loads its hooks with require(), so they are CommonJS.
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
)
