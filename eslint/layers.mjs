// The layers of DESIGN §5 as lint rules keyed on folder names, never on how many `../` a specifier has:
// a relative import is resolved to its path in the repository and matched against the folders its
// layer may not reach, so electron/shared/contract/x.ts is held to electron/shared's rule like its parent.
// Package imports (electron, dexie, node:*) stay with ESLint's no-restricted-imports, one set per folder.
// Layer order and the reasons are in README "Layers"; tests/unit/build/layers.test.ts plants a violation of each.
import { dirname, relative, resolve, sep } from 'node:path'

/** `**` any characters (slashes too), `*` any within one folder; matched against the whole repo-relative path. */
function globToRegExp(glob) {
  const source = glob
    .split('**')
    .map((part) =>
      part
        .split('*')
        .map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
        .join('[^/]*'),
    )
    .join('.*')
  return new RegExp(`^${source}$`)
}

/** The module a relative specifier names, as a repo-relative path with forward slashes (extension dropped). */
export function importedPath(root, fromFile, specifier) {
  const target = relative(root, resolve(dirname(fromFile), specifier.replace(/\.(m?js|ts|vue)$/, '')))
  return target.split(sep).join('/')
}

const noImportFrom = {
  meta: {
    type: 'problem',
    docs: {
      description: 'A layer may not import from the folders named (paths resolved, not by ../ depth).',
    },
    schema: [
      {
        type: 'object',
        properties: {
          root: { type: 'string' },
          layer: { type: 'string' },
          forbidden: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                paths: { type: 'array', items: { type: 'string' } },
                except: { type: 'array', items: { type: 'string' } },
                message: { type: 'string' },
              },
              required: ['paths', 'message'],
              additionalProperties: false,
            },
          },
        },
        required: ['root', 'layer', 'forbidden'],
        additionalProperties: false,
      },
    ],
    messages: { forbidden: '{{layer}} may not import {{target}}: {{message}}' },
  },
  create(context) {
    const { root, layer, forbidden } = context.options[0]
    const rules = forbidden.map((f) => ({
      paths: f.paths.map(globToRegExp),
      except: (f.except ?? []).map(globToRegExp),
      message: f.message,
    }))
    const check = (node, source) => {
      if (!source || source.type !== 'Literal' || typeof source.value !== 'string') return
      if (!source.value.startsWith('.')) return
      const target = importedPath(root, context.filename, source.value)
      for (const rule of rules) {
        const hit = rule.paths.some((p) => p.test(target)) && !rule.except.some((p) => p.test(target))
        if (hit) {
          context.report({
            node: source,
            messageId: 'forbidden',
            data: { layer, target, message: rule.message },
          })
          return
        }
      }
    }
    return {
      ImportDeclaration: (node) => check(node, node.source),
      ExportNamedDeclaration: (node) => check(node, node.source),
      ExportAllDeclaration: (node) => check(node, node.source),
      ImportExpression: (node) => check(node, node.source),
    }
  },
}

export const layersPlugin = { meta: { name: 'closebook-layers' }, rules: { 'no-import-from': noImportFrom } }

const renderer = ['src/**']
const electronHosts = ['electron/main/**', 'electron/preload/**', 'electron/web/**']
const notTheRenderer = {
  paths: renderer,
  message: 'the renderer is built for the browser; share code through electron/shared.',
}
const notTheMainSide = {
  paths: ['electron/**'],
  except: ['electron/shared/**'],
  message: 'the renderer reaches the platform only through src/platform and electron/shared.',
}
const rendererAbove = (folders, why) => ({ paths: folders.map((f) => `src/${f}/**`), message: why })
const upper = ['stores', 'views', 'components', 'router']
const UP =
  'a lower layer never imports a higher one (domain ← db/import/reconcile/export/sync ← stores ← views, components).'

/**
 * One entry per layer: the files it covers (ESLint globs) and what it may not import. Each folder's
 * block is its own, so a file matches exactly one layer (the most specific folder is listed once).
 */
export const LAYERS = [
  // ── the renderer ──
  {
    layer: 'src/domain',
    files: ['src/domain/**'],
    forbidden: [
      {
        paths: ['src/**'],
        except: ['src/domain/**'],
        message: 'the domain model is pure: it imports only itself and electron/shared.',
      },
      notTheMainSide,
    ],
  },
  {
    layer: 'src/db',
    files: ['src/db/**'],
    forbidden: [
      rendererAbove(['reconcile', 'import', 'export', 'sync', 'platform', 'i18n', ...upper], UP),
      notTheMainSide,
    ],
  },
  {
    layer: 'src/import',
    files: ['src/import/**'],
    forbidden: [rendererAbove(['db', 'reconcile', 'export', 'sync', 'i18n', ...upper], UP), notTheMainSide],
  },
  {
    layer: 'src/reconcile',
    files: ['src/reconcile/**'],
    forbidden: [rendererAbove(['db', 'export', 'sync', 'platform', 'i18n', ...upper], UP), notTheMainSide],
  },
  {
    layer: 'src/export',
    files: ['src/export/**'],
    forbidden: [rendererAbove(['db', 'import', 'sync', 'i18n', ...upper], UP), notTheMainSide],
  },
  {
    layer: 'src/sync',
    files: ['src/sync/**'],
    forbidden: [rendererAbove(['import', 'export', 'i18n', ...upper], UP), notTheMainSide],
  },
  {
    layer: 'src/platform',
    files: ['src/platform/**'],
    forbidden: [
      {
        paths: ['src/**'],
        except: ['src/platform/**'],
        message: 'the platform adapter depends only on the contract.',
      },
      notTheMainSide,
    ],
  },
  {
    layer: 'src/i18n',
    files: ['src/i18n/**'],
    forbidden: [
      rendererAbove(['db', 'import', 'reconcile', 'export', 'sync', 'platform', ...upper], UP),
      notTheMainSide,
    ],
  },
  {
    layer: 'src/stores',
    files: ['src/stores/**'],
    forbidden: [rendererAbove(['views', 'components', 'router'], UP), notTheMainSide],
  },
  {
    layer: 'src/components',
    files: ['src/components/**'],
    forbidden: [
      rendererAbove(['views', 'router'], 'a component is used by views; it never imports one.'),
      notTheMainSide,
    ],
  },
  { layer: 'src/views', files: ['src/views/**'], forbidden: [notTheMainSide] },
  {
    layer: 'src (app shell)',
    files: ['src/*.ts', 'src/*.vue', 'src/router/**', 'src/assets/**'],
    forbidden: [notTheMainSide],
  },
  // ── the main side ──
  {
    layer: 'electron/shared',
    files: ['electron/shared/**'],
    forbidden: [
      {
        paths: ['electron/**'],
        except: ['electron/shared/**'],
        message: 'electron/shared is the pure contract: it imports no host, service or sandbox.',
      },
      notTheRenderer,
    ],
  },
  {
    layer: 'electron/services',
    files: ['electron/services/**'],
    forbidden: [
      {
        paths: electronHosts,
        message: 'services are plain TypeScript used by the hosts; they never import one.',
      },
      notTheRenderer,
    ],
  },
  {
    layer: 'electron/sandbox',
    files: ['electron/sandbox/**'],
    forbidden: [
      {
        paths: [...electronHosts, 'electron/services/**'],
        message: 'the sandbox stands alone (its CLI runs it without the app).',
      },
      notTheRenderer,
    ],
  },
  {
    layer: 'electron/main',
    files: ['electron/main/**'],
    forbidden: [
      {
        paths: ['electron/web/**', 'electron/preload/**'],
        message: 'the Electron host does not import the other hosts.',
      },
      notTheRenderer,
    ],
  },
  {
    layer: 'electron/preload',
    files: ['electron/preload/**'],
    forbidden: [
      {
        paths: ['electron/**'],
        except: ['electron/shared/**'],
        message: 'the preload exposes the contract and nothing else.',
      },
      notTheRenderer,
    ],
  },
  {
    layer: 'electron/web',
    files: ['electron/web/**'],
    forbidden: [
      {
        paths: ['electron/main/**', 'electron/preload/**'],
        message: 'the web host does not import the Electron host.',
      },
      notTheRenderer,
    ],
  },
]

/** Flat-config blocks for LAYERS; `root` is the repository (where the globs start). */
export function layerConfigs(root) {
  return LAYERS.map(({ layer, files, forbidden }) => ({
    name: `closebook/layers/${layer}`,
    files,
    plugins: { layers: layersPlugin },
    rules: { 'layers/no-import-from': ['error', { root, layer, forbidden }] },
  }))
}

// ── packages: which folders may import electron, Dexie and Node (DESIGN §5) ──
const noElectron = {
  name: 'electron',
  message: 'Only electron/main and electron/preload may import electron (DESIGN §5).',
}
const noDexie = { name: 'dexie', message: 'Only src/db may import Dexie (DESIGN §5).' }
const noNode = {
  group: ['node:*'],
  message: 'This folder runs in the browser or is pure TypeScript: no Node modules.',
}
const NODE_BUILTINS = [
  'fs',
  'path',
  'crypto',
  'os',
  'http',
  'https',
  'net',
  'child_process',
  'url',
  'util',
  'stream',
  'buffer',
]
const noBareNode = { group: NODE_BUILTINS.flatMap((m) => [m, `${m}/*`]), message: noNode.message }
const restrict = (paths, patterns = []) => ['error', { paths, patterns }]

/**
 * no-restricted-imports per folder, ordered so the most specific block comes last (flat config: the
 * last matching block's options win, so each block lists its whole set, not a difference).
 */
export function packageConfigs() {
  return [
    {
      name: 'closebook/packages/default',
      rules: { 'no-restricted-imports': restrict([noElectron, noDexie]) },
    },
    {
      name: 'closebook/packages/renderer',
      files: ['src/**'],
      rules: { 'no-restricted-imports': restrict([noElectron, noDexie], [noNode, noBareNode]) },
    },
    {
      name: 'closebook/packages/db',
      files: ['src/db/**'],
      rules: { 'no-restricted-imports': restrict([noElectron], [noNode, noBareNode]) },
    },
    {
      name: 'closebook/packages/db-tests',
      files: ['tests/unit/src/db/**'],
      rules: { 'no-restricted-imports': restrict([noElectron]) },
    },
    {
      name: 'closebook/packages/shared',
      files: ['electron/shared/**'],
      rules: { 'no-restricted-imports': restrict([noElectron, noDexie], [noNode, noBareNode]) },
    },
    {
      name: 'closebook/packages/electron-hosts',
      files: ['electron/main/**', 'electron/preload/**', 'tests/unit/electron/main/**', 'tests/e2e/**'],
      rules: { 'no-restricted-imports': restrict([noDexie]) },
    },
  ]
}
