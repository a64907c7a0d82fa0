#!/usr/bin/env node
// Rewrites relative import specifiers that name the domain model's old homes (src/db/records,
// src/reconcile/{periods,currency,fingerprint}, src/import/local-day) to src/domain/. Names of Dexie
// storage rows imported from the old src/db/records go to src/db/storage-rows instead, splitting the
// import in two where needed. Idempotent: a file already rewritten is left as it is.
//   node scripts/rewrite-domain-imports.mjs FILE…   (no files: every .ts/.vue/.mts/.mjs under src, electron, tests, scripts)
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'

const root = resolve(import.meta.dirname, '..')

/** Old module (repo-relative, no extension) → new module. */
export const MODULE_MOVES = {
  'src/db/records': 'src/domain/records',
  'src/reconcile/periods': 'src/domain/periods',
  'src/reconcile/currency': 'src/domain/currency',
  'src/reconcile/fingerprint': 'src/domain/fingerprint',
  'src/import/local-day': 'src/domain/local-day',
}

/** Names that left src/db/records for src/db/storage-rows: how Dexie stores rows, not the domain. */
export const STORAGE_ROW_NAMES = new Set([
  'DayDigestRecord',
  'DayTokensRecord',
  'MarkDayRecord',
  'AuditRow',
  'AuditChange',
  'SettingRecord',
])
const STORAGE_ROWS_MODULE = 'src/db/storage-rows'

/** Files that moved with the modules (tests follow their subject), so their own specifiers are re-based. */
export const FILE_MOVES = {
  ...Object.fromEntries(Object.entries(MODULE_MOVES).map(([from, to]) => [`${from}.ts`, `${to}.ts`])),
  'tests/unit/src/reconcile/periods.test.ts': 'tests/unit/src/domain/periods.test.ts',
  'tests/unit/src/reconcile/currency.test.ts': 'tests/unit/src/domain/currency.test.ts',
  'tests/unit/src/reconcile/fingerprint.test.ts': 'tests/unit/src/domain/fingerprint.test.ts',
  'tests/unit/src/import/local-day.test.ts': 'tests/unit/src/domain/local-day.test.ts',
}
const OLD_LOCATION = Object.fromEntries(Object.entries(FILE_MOVES).map(([from, to]) => [to, from]))

const toPosix = (p) => p.split(sep).join('/')
const sourceExtensions = ['.ts', '.vue', '.mts', '.d.ts', '.js', '.mjs']

function existsModule(repoPath) {
  const abs = join(root, repoPath)
  if (existsSync(abs) && statSync(abs).isFile()) return true
  return sourceExtensions.some((e) => existsSync(abs + e)) || existsSync(join(abs, 'index.ts'))
}

/** The repo-relative module a specifier names, extension dropped; its extension kept aside. */
function targetOf(fileRepoPath, specifier) {
  const match = /^(.*?)(\.(?:m?js|ts))?$/.exec(specifier)
  const target = toPosix(relative(root, resolve(root, dirname(fileRepoPath), match[1])))
  return { target, extension: match[2] ?? '' }
}

function specifierFor(fileRepoPath, targetModule, extension) {
  let spec = toPosix(relative(dirname(fileRepoPath), targetModule))
  if (!spec.startsWith('.')) spec = `./${spec}`
  return spec + extension
}

/** New specifier for one relative specifier of a file, or null when it names nothing that moved. */
function rewriteSpecifier(fileRepoPath, specifier, moduleOverride) {
  if (!specifier.startsWith('.')) return null
  let { target, extension } = targetOf(fileRepoPath, specifier)
  const oldLocation = OLD_LOCATION[fileRepoPath]
  // A moved file keeps the specifiers it had at its old place until rewritten: re-base them from there.
  if (oldLocation && !(target in MODULE_MOVES) && !existsModule(target)) {
    target = targetOf(oldLocation, specifier).target
    if (!(target in MODULE_MOVES) && !existsModule(target)) return null
    const moved = moduleOverride ?? MODULE_MOVES[target] ?? target
    return specifierFor(fileRepoPath, moved, extension)
  }
  if (!(target in MODULE_MOVES)) return null
  return specifierFor(fileRepoPath, moduleOverride ?? MODULE_MOVES[target], extension)
}

const NAMED_DECLARATION = /\b(import|export)(\s+type)?\s*\{([^}]*)\}\s*from\s*(['"])([^'"]+)\4/g
const ANY_SPECIFIER =
  /(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\bvi\.mock\(\s*|\bvi\.importActual(?:<[^>]*>)?\(\s*)(['"])([^'"]+)\2/g

function nameOf(element) {
  return element
    .trim()
    .replace(/^type\s+/, '')
    .split(/\s+as\s+/)[0]
    .trim()
}

export function rewriteSource(fileRepoPath, text) {
  // 1. Named imports from the old src/db/records: storage rows go to src/db/storage-rows.
  let out = text.replace(NAMED_DECLARATION, (whole, keyword, typeOnly, names, quote, specifier) => {
    if (!specifier.startsWith('.')) return whole
    let { target } = targetOf(fileRepoPath, specifier)
    const oldLocation = OLD_LOCATION[fileRepoPath]
    if (target !== 'src/db/records' && oldLocation && !existsModule(target))
      target = targetOf(oldLocation, specifier).target
    if (target !== 'src/db/records') return whole
    const elements = names.split(',').filter((e) => e.trim() !== '')
    const rows = elements.filter((e) => STORAGE_ROW_NAMES.has(nameOf(e)))
    const domain = elements.filter((e) => !STORAGE_ROW_NAMES.has(nameOf(e)))
    const multiline = names.includes('\n')
    const declaration = (list, module) => {
      const body = multiline
        ? `{\n${list.map((e) => `  ${e.trim()},`).join('\n')}\n}`
        : `{ ${list.map((e) => e.trim()).join(', ')} }`
      const spec = rewriteSpecifier(fileRepoPath, specifier, module)
      return `${keyword}${typeOnly ?? ''} ${body} from ${quote}${spec}${quote}`
    }
    const parts = []
    if (domain.length > 0) parts.push(declaration(domain, MODULE_MOVES['src/db/records']))
    if (rows.length > 0) parts.push(declaration(rows, STORAGE_ROWS_MODULE))
    return parts.join('\n')
  })
  // 2. Every other specifier form (default, namespace, side effect, dynamic import, vi.mock).
  out = out.replace(ANY_SPECIFIER, (whole, lead, quote, specifier) => {
    const next = rewriteSpecifier(fileRepoPath, specifier)
    return next === null ? whole : `${lead}${quote}${next}${quote}`
  })
  return out
}

function listFiles(dir) {
  const out = []
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name.startsWith('.')) continue
    const path = join(dir, name)
    if (statSync(path).isDirectory()) out.push(...listFiles(path))
    else if (/\.(ts|vue|mts|mjs)$/.test(name)) out.push(path)
  }
  return out
}

function main() {
  const given = process.argv.slice(2)
  const files =
    given.length > 0
      ? given.map((f) => resolve(f))
      : ['src', 'electron', 'tests', 'scripts'].flatMap((d) =>
          existsSync(join(root, d)) ? listFiles(join(root, d)) : [],
        )
  let changed = 0
  for (const file of files) {
    if (resolve(file) === resolve(import.meta.filename)) continue
    const repoPath = toPosix(relative(root, file))
    const text = readFileSync(file, 'utf8')
    const next = rewriteSource(repoPath, text)
    if (next !== text) {
      writeFileSync(file, next)
      changed += 1
      console.log(`rewrote ${repoPath}`)
    }
  }
  console.log(`${changed} file(s) rewritten`)
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) main()
