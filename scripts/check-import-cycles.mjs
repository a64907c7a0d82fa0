#!/usr/bin/env node
// Import cycles among files and among folders of src/ and electron/. ESLint sees one file at a time, so
// a cycle (a ↔ b, or db → reconcile → db) needs the whole graph: this builds it from the sources with
// TypeScript's own import scanner (type-only imports count: they still tie the folders together) and
// exits 1 on any cycle. `--graph` prints the folder graph (README "Layers"); `--root DIR` checks another tree.
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

export function buildGraph(rootDir) {
  const files = sourceDirs
    .filter((d) => existsSync(join(rootDir, d)))
    .flatMap((d) => listSources(join(rootDir, d)))
  const edges = new Map()
  for (const file of files) {
    const targets = new Set()
    for (const imported of ts.preProcessFile(scriptOf(file), true, true).importedFiles) {
      if (!imported.fileName.startsWith('.')) continue
      const target = resolveRelative(file, imported.fileName)
      if (target) targets.add(relative(rootDir, target))
    }
    edges.set(relative(rootDir, file), targets)
  }
  return edges
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
  const edges = buildGraph(root)
  const folders = folderGraph(edges)
  if (printGraph) {
    for (const [folder, targets] of [...folders].sort())
      console.log(`${folder} → ${[...targets.keys()].sort().join(', ') || '(nothing)'}`)
  }
  const fileCycles = cyclesOf(edges)
  const folderEdges = new Map([...folders].map(([f, t]) => [f, new Set(t.keys())]))
  const folderCycles = cyclesOf(folderEdges)
  for (const cycle of fileCycles) console.error(`import cycle among files: ${cycle.join(' ↔ ')}`)
  for (const cycle of folderCycles) {
    console.error(`import cycle among folders: ${cycle.join(' ↔ ')}`)
    for (const from of cycle) {
      for (const [to, example] of folders.get(from))
        if (cycle.includes(to)) console.error(`  ${from} → ${to}: ${example}`)
    }
  }
  if (fileCycles.length + folderCycles.length > 0) process.exit(1)
  console.log(`no import cycles among ${edges.size} files in ${folders.size} folders`)
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) main()
