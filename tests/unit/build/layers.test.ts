// The layer rules (eslint/layers.mjs) and the cycle check (scripts/check-import-cycles.mjs) each catch a
// planted violation, and leave the imports each layer is allowed alone. Planted code is linted in memory
// at the path it would have; the cycle check runs on a planted tree in a temporary folder.
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { ESLint, Linter } from 'eslint'
import tseslint from 'typescript-eslint'
import vueParser from 'vue-eslint-parser'
import { afterAll, describe, expect, it } from 'vitest'
import { layerConfigs, LAYERS, packageConfigs } from '../../../eslint/layers.mjs'

const root = resolve(import.meta.dirname, '../../..')

const config: Linter.Config[] = [
  {
    files: ['**/*.ts', '**/*.vue'],
    languageOptions: {
      parser: vueParser,
      parserOptions: {
        parser: tseslint.parser,
        sourceType: 'module',
        ecmaVersion: 'latest',
        extraFileExtensions: ['.vue'],
      },
    },
  },
  ...packageConfigs(),
  ...layerConfigs(root),
]

/** The layer and package messages ESLint gives `code` placed at `file` (repo-relative). */
function problems(file: string, code: string): string[] {
  const linter = new Linter({ configType: 'flat', cwd: root })
  const text = file.endsWith('.vue') ? `<script setup lang="ts">\n${code}\n</script>\n` : code
  return linter
    .verify(text, config, { filename: join(root, file) })
    .map((m) => `${m.ruleId ?? 'parse'}: ${m.message}`)
}

const layerError = (target: string): unknown =>
  expect.stringMatching(new RegExp(`^layers/no-import-from: .* may not import ${target}:`)) as unknown
const packageError: unknown = expect.stringMatching(/^no-restricted-imports: /)

describe('layer rules (folder names, not ../ depth)', () => {
  // [file, import statement, the forbidden target it names]
  const violations: [string, string, string][] = [
    // electron/shared/contract sits one level deeper than electron/shared: the old ../main/** pattern missed it.
    [
      'electron/shared/contract/planted.ts',
      "import { x } from '../../services/app-services'",
      'electron/services/app-services',
    ],
    ['electron/shared/contract/planted.ts', "import { x } from '../../main/index'", 'electron/main/index'],
    ['electron/shared/planted.ts', "import { x } from '../sandbox/server'", 'electron/sandbox/server'],
    ['electron/shared/planted.ts', "import { x } from '../../src/domain/records'", 'src/domain/records'],
    ['src/domain/planted.ts', "import { x } from '../db/database'", 'src/db/database'],
    ['src/domain/planted.ts', "export { x } from '../reconcile/matching'", 'src/reconcile/matching'],
    ['src/domain/planted.ts', "const m = import('../import/profiles')", 'src/import/profiles'],
    ['src/domain/planted.ts', "export * from '../stores/app-store'", 'src/stores/app-store'],
    ['src/db/planted.ts', "import { x } from '../reconcile/marking'", 'src/reconcile/marking'],
    ['src/db/nested/planted.ts', "import { x } from '../../export/csv'", 'src/export/csv'],
    ['src/import/planted.ts', "import { x } from '../reconcile/matching'", 'src/reconcile/matching'],
    ['src/reconcile/planted.ts', "import type { x } from '../db/database'", 'src/db/database'],
    ['src/export/planted.ts', "import { x } from '../db/database'", 'src/db/database'],
    [
      'src/export/journal/planted.ts',
      "import { x } from '../../stores/journal-store'",
      'src/stores/journal-store',
    ],
    ['src/sync/planted.ts', "import { x } from '../stores/sync-store'", 'src/stores/sync-store'],
    ['src/platform/planted.ts', "import { x } from '../stores/app-store'", 'src/stores/app-store'],
    ['src/i18n/planted.ts', "import { x } from '../db/database'", 'src/db/database'],
    ['src/stores/planted.ts', "import X from '../views/LedgerView.vue'", 'src/views/LedgerView'],
    ['src/components/Planted.vue', "import X from '../views/LedgerView.vue'", 'src/views/LedgerView'],
    [
      'src/views/planted.ts',
      "import { x } from '../../electron/services/dispatcher'",
      'electron/services/dispatcher',
    ],
    ['src/planted.ts', "import { x } from '../electron/main/index'", 'electron/main/index'],
    [
      'electron/services/handlers/planted.ts',
      "import { x } from '../../web/web-host'",
      'electron/web/web-host',
    ],
    ['electron/services/planted.ts', "import { x } from '../main/index'", 'electron/main/index'],
    ['electron/services/planted.ts', "import { x } from '../../src/db/database'", 'src/db/database'],
    [
      'electron/sandbox/planted.ts',
      "import { x } from '../services/dispatcher'",
      'electron/services/dispatcher',
    ],
    [
      'electron/preload/planted.ts',
      "import { x } from '../services/dispatcher'",
      'electron/services/dispatcher',
    ],
    ['electron/main/planted.ts', "import { x } from '../web/web-host'", 'electron/web/web-host'],
    ['electron/main/planted.ts', "import { x } from '../../src/db/database'", 'src/db/database'],
    ['electron/web/planted.ts', "import { x } from '../main/index'", 'electron/main/index'],
  ]
  it.each(violations)('%s: %s is refused', (file, code, target) => {
    expect(problems(file, code)).toEqual([layerError(target)])
  })

  const allowed: [string, string][] = [
    ['electron/shared/contract/planted.ts', "import { x } from '../payment-api'"],
    ['src/domain/planted.ts', "import { x } from '../../electron/shared/payment-api'"],
    ['src/domain/planted.ts', "import { x } from './periods'"],
    ['src/db/planted.ts', "import { x } from '../domain/records'"],
    ['src/reconcile/planted.ts', "import { x } from '../import/profiles'"],
    ['src/export/planted.ts', "import { x } from '../reconcile/cross-check'"],
    ['src/sync/planted.ts', "import { x } from '../db/database'"],
    ['src/stores/planted.ts', "import { x } from '../sync/sync-engine'"],
    ['src/views/planted.ts', "import { x } from '../stores/ledger-store'"],
    ['src/components/Planted.vue', "import { x } from '../stores/ledger-store'"],
    ['electron/services/planted.ts', "import { x } from '../sandbox/server'"],
    ['electron/web/planted.ts', "import { x } from '../services/app-services'"],
    ['electron/main/planted.ts', "import { app } from 'electron'"],
    ['src/db/planted.ts', "import Dexie from 'dexie'"],
  ]
  it.each(allowed)('%s: %s is allowed', (file, code) => {
    expect(problems(file, code)).toEqual([])
  })
})

describe('package rules (DESIGN §5)', () => {
  const violations: [string, string][] = [
    ['src/views/planted.ts', "import Dexie from 'dexie'"],
    ['src/stores/planted.ts', "import Dexie from 'dexie'"],
    ['src/domain/planted.ts', "import { readFile } from 'node:fs/promises'"],
    ['src/db/planted.ts', "import { createHash } from 'crypto'"],
    ['electron/shared/contract/planted.ts', "import { createHash } from 'node:crypto'"],
    ['electron/shared/planted.ts', "import { ipcRenderer } from 'electron'"],
    ['electron/services/planted.ts', "import { app } from 'electron'"],
    ['electron/sandbox/planted.ts', "import Dexie from 'dexie'"],
    ['src/db/planted.ts', "import { ipcRenderer } from 'electron'"],
  ]
  it.each(violations)('%s: %s is refused', (file, code) => {
    expect(problems(file, code)).toEqual([packageError])
  })
})

describe('the project config applies the layer rules', () => {
  const eslint = new ESLint({ cwd: root })
  it.each(LAYERS.map((l) => [l.layer, l.files[0]!.replace('**', 'x.ts').replace('*.ts', 'main.ts')]))(
    '%s (%s)',
    async (layer, file) => {
      const resolved = (await eslint.calculateConfigForFile(file)) as Linter.Config
      const rule = resolved.rules?.['layers/no-import-from'] as [unknown, { layer: string }] | undefined
      expect(rule?.[1].layer).toBe(layer)
    },
  )
})

describe('import cycle check', () => {
  const dirs: string[] = []
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })))

  function check(files: Record<string, string>): { status: number; output: string } {
    const dir = mkdtempSync(join(tmpdir(), 'closebook-cycles-'))
    dirs.push(dir)
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true })
      writeFileSync(join(dir, path), text)
    }
    try {
      const output = execFileSync('node', [join(root, 'scripts/check-import-cycles.mjs'), '--root', dir], {
        encoding: 'utf8',
        stdio: 'pipe',
      })
      return { status: 0, output }
    } catch (error) {
      const e = error as { status: number; stdout: string; stderr: string }
      return { status: e.status, output: e.stdout + e.stderr }
    }
  }

  it('refuses a run-time cycle between two files', () => {
    const result = check({
      'src/reconcile/a.ts': "import { b } from './b'\nexport const a = 1",
      'src/reconcile/b.ts': "import { a } from './a'\nexport const b = a",
    })
    expect(result.status).toBe(1)
    expect(result.output).toContain(
      'import cycle among files (run-time imports): src/reconcile/a.ts ↔ src/reconcile/b.ts',
    )
  })

  it('refuses a folder cycle even when it is made of type imports', () => {
    const result = check({
      'src/db/records.ts': "import type { Day } from '../reconcile/periods'\nexport type Key = Day",
      'src/reconcile/periods.ts':
        "import type { Key } from '../db/records'\nexport type Day = string\nexport type K = Key",
    })
    expect(result.status).toBe(1)
    expect(result.output).toContain('import cycle among folders: src/db ↔ src/reconcile')
    expect(result.output).toContain('src/db → src/reconcile: src/db/records.ts → src/reconcile/periods.ts')
    expect(result.output).not.toContain('among files')
  })

  it('finds a cycle through a .vue file and a dynamic import', () => {
    const result = check({
      'src/views/A.vue':
        '<template><p /></template>\n<script setup lang="ts">\nimport { s } from \'../stores/s\'\n</script>\n',
      'src/stores/s.ts': "export const s = () => import('../views/A.vue')",
    })
    expect(result.status).toBe(1)
    expect(result.output).toContain('import cycle among folders: src/stores ↔ src/views')
  })

  it('accepts the layered order and a type-only cycle between two files of one folder', () => {
    const result = check({
      'src/domain/records.ts': 'export type Key = string',
      'src/db/database.ts':
        "import { repo } from './repo'\nimport type { Key } from '../domain/records'\nexport class Db { k?: Key; r = repo }",
      'src/db/repo.ts': "import type { Db } from './database'\nexport const repo = (db: Db) => db",
    })
    expect(result).toEqual({ status: 0, output: 'no import cycles among 3 files in 2 folders\n' })
  })

  it('passes on this repository', () => {
    const output = execFileSync('node', [join(root, 'scripts/check-import-cycles.mjs')], { encoding: 'utf8' })
    expect(output).toMatch(/^no import cycles among \d+ files in \d+ folders\n$/)
  })
})
