#!/usr/bin/env node
// Import cycles among files and among folders of src/ and electron/. ESLint sees one file at a time, so
// a cycle (a ↔ b, or db → reconcile → db) needs the whole graph: this builds it from the sources with
// TypeScript's parser and exits 1 on any cycle. Among folders every import counts (types tie folders
// together too); among files only run-time ones (a type-only cycle is erased and cannot misorder loading). `--graph` prints the folder graph (docs/architecture.md, "Layers"); `--root DIR` checks another tree.
import { readFileSync, readdirSync, statSync, existsSync } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'
import ts from 'typescript'

const args = process.argv.slice(2)
const rootArg = args.indexOf('--root')
const root = resolve(rootArg >= 0 ? args[rootArg + 1] : join(import.meta.dirname, '..'))
const printGraph = args.includes('--graph')
const sourceDirs = ['src', 'electron']
const extensions = ['.ts', '.vue', '.mts']

function listSources(dir) {
  const out = []
  for (const name of readdirSync(dir)) {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) out.push(...listSources(path))
    else if (extensions.some((ext) => name.endsWith(ext)) && !name.endsWith('.d.ts')) out.push(path)
  }
  return out
}

function scriptOf(path) {
  const text = readFileSync(path, 'utf8')
  if (!path.endsWith('.vue')) return text
  return [...text.matchAll(/<script\b[^>]*>([\s\S]*?)<\/script>/g)].map((m) => m[1]).join('\n')
}

function resolveRelative(fromFile, specifier) {
  const base = resolve(dirname(fromFile), specifier)
  const stem = base.replace(/\.(m?js)$/, '')
  const candidates = [
    base,
    ...extensions.map((e) => stem + e),
    ...extensions.map((e) => join(base, 'index' + e)),
  ]
  return candidates.find((c) => existsSync(c) && statSync(c).isFile())
}

/** The folder a file belongs to as a layer: src/db, src/export (journal included), electron/shared. */
export function folderOf(rel) {
  const parts = rel.split(sep)
  return parts.length > 2 ? parts.slice(0, 2).join('/') : `${parts[0]}/(root)`
}

/** Relative specifiers of a module, each with whether only types are imported (erased at run time). */
function importsOf(path) {
  const source = ts.createSourceFile(path, scriptOf(path), ts.ScriptTarget.Latest, false, ts.ScriptKind.TS)
  const found = []
  const namedAreTypes = (named) =>
    named !== undefined && ts.isNamedImports(named)
      ? named.elements.length > 0 && named.elements.every((e) => e.isTypeOnly)
      : false
  const visit = (node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause
      const typeOnly =
        clause !== undefined && (clause.isTypeOnly || (!clause.name && namedAreTypes(clause.namedBindings)))
      found.push({ specifier: node.moduleSpecifier.text, typeOnly })
    } else if (
      ts.isExportDeclaration(node) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      const clause = node.exportClause
      const typeOnly =
        node.isTypeOnly ||
        (clause !== undefined &&
          ts.isNamedExports(clause) &&
          clause.elements.length > 0 &&
          clause.elements.every((e) => e.isTypeOnly))
      found.push({ specifier: node.moduleSpecifier.text, typeOnly })
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      found.push({ specifier: node.arguments[0].text, typeOnly: false })
    } else if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal)
    ) {
      found.push({ specifier: node.argument.literal.text, typeOnly: true })
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return found
}

/**
 * The import graph of the sources: `all` edges (folders are tied by types too) and `runtime` edges
 * (what runs when a module loads: a file cycle of type-only imports is harmless, so only these count).
 */
export function buildGraph(rootDir) {
  const files = sourceDirs
    .filter((d) => existsSync(join(rootDir, d)))
    .flatMap((d) => listSources(join(rootDir, d)))
  const all = new Map()
  const runtime = new Map()
  for (const file of files) {
    const allTargets = new Set()
    const runtimeTargets = new Set()
    for (const { specifier, typeOnly } of importsOf(file)) {
      if (!specifier.startsWith('.')) continue
      const target = resolveRelative(file, specifier)
      if (!target) continue
      allTargets.add(relative(rootDir, target))
      if (!typeOnly) runtimeTargets.add(relative(rootDir, target))
    }
    all.set(relative(rootDir, file), allTargets)
    runtime.set(relative(rootDir, file), runtimeTargets)
  }
  return { all, runtime }
}

/** Tarjan's strongly connected components; every component of more than one node (or a self-loop) is a cycle. */
export function cyclesOf(edges) {
  let index = 0
  const indexOf = new Map()
  const low = new Map()
  const stack = []
  const onStack = new Set()
  const cycles = []
  const visit = (node) => {
    indexOf.set(node, index)
    low.set(node, index++)
    stack.push(node)
    onStack.add(node)
    for (const next of edges.get(node) ?? []) {
      if (!indexOf.has(next)) {
        visit(next)
        low.set(node, Math.min(low.get(node), low.get(next)))
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node), indexOf.get(next)))
    }
    if (low.get(node) !== indexOf.get(node)) return
    const component = []
    let member
    do {
      member = stack.pop()
      onStack.delete(member)
      component.push(member)
    } while (member !== node)
    if (component.length > 1 || edges.get(node)?.has(node)) cycles.push(component.sort())
  }
  for (const node of edges.keys()) if (!indexOf.has(node)) visit(node)
  return cycles
}

/** The folder graph with, per edge, one file-level import that makes it (for the report). */
export function folderGraph(edges) {
  const folders = new Map()
  for (const [from, targets] of edges) {
    const source = folderOf(from)
    if (!folders.has(source)) folders.set(source, new Map())
    for (const to of targets) {
      const target = folderOf(to)
      if (target !== source && !folders.get(source).has(target))
        folders.get(source).set(target, `${from} → ${to}`)
    }
  }
  return folders
}

function main() {
  const { all, runtime } = buildGraph(root)
  const folders = folderGraph(all)
  if (printGraph) {
    for (const [folder, targets] of [...folders].sort())
      console.log(`${folder} → ${[...targets.keys()].sort().join(', ') || '(nothing)'}`)
  }
  const fileCycles = cyclesOf(runtime)
  const folderEdges = new Map([...folders].map(([f, t]) => [f, new Set(t.keys())]))
  const folderCycles = cyclesOf(folderEdges)
  for (const cycle of fileCycles)
    console.error(`import cycle among files (run-time imports): ${cycle.join(' ↔ ')}`)
  for (const cycle of folderCycles) {
    console.error(`import cycle among folders: ${cycle.join(' ↔ ')}`)
    for (const from of cycle) {
      for (const [to, example] of folders.get(from))
        if (cycle.includes(to)) console.error(`  ${from} → ${to}: ${example}`)
    }
  }
  if (fileCycles.length + folderCycles.length > 0) process.exit(1)
  console.log(`no import cycles among ${all.size} files in ${folders.size} folders`)
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) main()
