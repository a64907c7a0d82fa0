// Types of eslint/layers.mjs for the TypeScript tests that load it.
import type { ESLint, Linter } from 'eslint'

export interface ForbiddenImports {
  paths: string[]
  except?: string[]
  message: string
}

export interface Layer {
  layer: string
  files: string[]
  forbidden: ForbiddenImports[]
}

export const LAYERS: Layer[]
export const layersPlugin: ESLint.Plugin
export function importedPath(root: string, fromFile: string, specifier: string): string
export function layerConfigs(root: string): Linter.Config[]
export function packageConfigs(): Linter.Config[]
