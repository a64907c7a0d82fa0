// Types of scripts/rewrite-domain-imports.mjs for the test that loads it.
export const MODULE_MOVES: Record<string, string>
export const STORAGE_ROW_NAMES: Set<string>
export const FILE_MOVES: Record<string, string>
export function rewriteSource(fileRepoPath: string, text: string): string
