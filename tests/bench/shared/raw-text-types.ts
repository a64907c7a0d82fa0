/** How the raw-text bench's page stores a history part's rows (tests/bench/browser/raw-text-entry.ts). */
export type RawLayout = 'object' | 'text' | 'columns'

export interface RawTextPrepared {
  rows: number
  parts: number
  /** Characters of the stored rows' JSON, a rough size of what is cloned. */
  jsonChars: number
  /** Page-side milliseconds to build the rows (JSON.stringify of every `raw` for `text`). */
  buildMs: number
}

export interface RawTextPhase {
  ms: number
  rows: number
}
