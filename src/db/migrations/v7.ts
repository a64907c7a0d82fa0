/**
 * Version 7 (frozen): the search reads `dayTokens`, a row of tokens per connection × UTC day part (at most
 * 512 records a part), instead of the `searchTokens` multi-entry index, which is dropped from history. The
 * upgrade files every record's stored v5 tokens in its day's parts, in one pass over history a page at a
 * time. Row shaping below is this step's own copy, as it was at version 7.
 */
import type { Transaction } from 'dexie'
import { forEachPage, type MigrationStep, type ReportMigrationProgress } from './step'

interface HistoryRowV7 {
  connectionId: string
  key: string
  createdAt: number
  storeId: string
  type: string
  status: string
  currency: string
  mode: string
  brand: string
  /** Version 5's day-scoped tokens (`${connectionId}\u0001${day, 6 digits}\u0001${token}`). */
  searchTokens?: string[]
}

interface EntryV7 {
  key: string
  createdAt: number
  text: string
  fields: string[]
}

const PART_SIZE = 512
const DAY_MS = 86_400_000
const FIELDS = ['storeId', 'type', 'status', 'currency', 'mode', 'brand'] as const

function dayOf(createdAt: number): number {
  return Number.isFinite(createdAt) ? Math.max(0, Math.floor(createdAt / DAY_MS)) : 0
}

/** The record's tokens without their scope, each preceded by a newline. */
function tokenText(r: HistoryRowV7): string {
  const scope = `${r.connectionId}\u0001${String(dayOf(r.createdAt)).padStart(6, '0')}\u0001`.length
  let text = ''
  for (const token of r.searchTokens ?? []) text += '\n' + token.slice(scope)
  return text
}

async function upgrade(tx: Transaction, report: ReportMigrationProgress): Promise<void> {
  const days = new Map<string, { connectionId: string; day: number; entries: EntryV7[] }>()
  await forEachPage<HistoryRowV7>(
    tx,
    'history',
    (r) => [r.connectionId, r.key],
    (rows) => {
      for (const r of rows) {
        const day = dayOf(r.createdAt)
        const id = `${r.connectionId}\u0001${day}`
        let group = days.get(id)
        if (!group) days.set(id, (group = { connectionId: r.connectionId, day, entries: [] }))
        group.entries.push({
          key: r.key,
          createdAt: r.createdAt,
          text: tokenText(r),
          fields: FIELDS.map((f) => r[f]),
        })
      }
    },
    (done, total) => report({ version: 7, done, total }),
  )
  const parts = [...days.values()].flatMap(({ connectionId, day, entries }) => {
    const rows = []
    for (let i = 0; i < entries.length; i += PART_SIZE) {
      const slice = entries.slice(i, i + PART_SIZE)
      rows.push({
        connectionId,
        day,
        part: rows.length,
        keys: slice.map((e) => e.key),
        times: slice.map((e) => e.createdAt),
        texts: slice.map((e) => e.text),
        fields: slice.flatMap((e) => e.fields),
      })
    }
    return rows
  })
  await tx.table('dayTokens').bulkAdd(parts)
}

export const v7: MigrationStep = {
  version: 7,
  stores: {
    connections: 'id',
    stores: '[connectionId+storeId]',
    history:
      '[connectionId+key], [connectionId+createdAt], [connectionId+type+createdAt], ' +
      '[connectionId+status+createdAt], [connectionId+storeId+createdAt], ' +
      '[connectionId+currency+createdAt], [connectionId+mode+createdAt], [connectionId+chargeId]',
    charges: '[connectionId+id], [connectionId+createdAt]',
    markDays: '[connectionId+day], [connectionId+changed]',
    dayDigests: '[connectionId+day]',
    dayTokens: '[connectionId+day+part]',
    audit: '++seq, [connectionId+at], *keyTags, *periodTags',
    checkpoints: '[connectionId+partitionId]',
    locks: '[connectionId+period]',
    settings: 'key',
    imports: '[connectionId+id], [connectionId+hash]',
    importedRows: '[connectionId+importId+line], [connectionId+importId], [connectionId+day]',
  },
  upgrade,
}
