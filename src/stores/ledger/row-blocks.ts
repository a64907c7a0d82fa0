/**
 * The ledger's block cache: rows by position in the current filter and order, read BLOCK at a time as the
 * grid scrolls. A generation number retires every read started before a reset, so a slow read of an old
 * filter never lands in the new one's rows.
 */
import { shallowRef, type Ref, type ShallowRef } from 'vue'
import { appCache } from '../../db/cache'
import type { DayCounts } from '../../db/day-counts'
import type { HistoryFilter } from '../../db/history-repository'
import type { HistoryRecord } from '../../domain/records'

export const BLOCK = 100

export interface RowBlocksDeps {
  currentFilter: () => HistoryFilter | null
  order: Ref<'asc' | 'desc'>
  /** Rows past the total are never read. */
  total: Ref<number>
  /** The filter's matches per day once counted (null before, or where pages are not read by day). */
  dayCounts: () => DayCounts | null
  /** Reads what the grid shows beside a page of rows (marks, fees, store names). */
  loadFacts: (connectionId: string, page: readonly HistoryRecord[]) => Promise<void>
}

export interface RowBlocks {
  /** Loaded rows by position in the current filter and order. */
  rows: ShallowRef<Map<number, HistoryRecord>>
  /** Loads the blocks covering rows [start, end); adjacent blocks not loaded yet go in one query. */
  ensureRows: (start: number, end: number) => Promise<void>
  /** Drops every row and retires the reads under way; returns the new generation. */
  reset: () => number
  /** Whether `gen` is still the current generation (no reset since). */
  isCurrent: (gen: number) => boolean
  /** Installs every row at once (a set sorted in memory): no block is left to load. */
  fill: (sorted: readonly HistoryRecord[]) => void
}

export function useRowBlocks(deps: RowBlocksDeps): RowBlocks {
  const rows = shallowRef(new Map<number, HistoryRecord>())
  const blocks = new Map<number, Promise<void>>()
  let generation = 0

  function reset(): number {
    const gen = ++generation
    blocks.clear()
    rows.value = new Map()
    return gen
  }

  function fill(sorted: readonly HistoryRecord[]): void {
    rows.value = new Map(sorted.map((r, i) => [i, r]))
    for (let b = 0; b * BLOCK < sorted.length; b++) blocks.set(b, Promise.resolve())
  }

  function ensureRows(start: number, end: number): Promise<void> {
    const jobs: Promise<void>[] = []
    const last = Math.ceil(Math.min(end, deps.total.value) / BLOCK)
    for (let b = Math.floor(start / BLOCK); b < last;) {
      const loaded = blocks.get(b)
      if (loaded) {
        jobs.push(loaded)
        b++
        continue
      }
      let count = 1
      while (b + count < last && !blocks.has(b + count)) count++
      const job = loadBlocks(b, count, generation)
      for (let i = 0; i < count; i++) blocks.set(b + i, job)
      jobs.push(job)
      b += count
    }
    return Promise.all(jobs).then(() => undefined)
  }

  /**
   * `count` blocks from `block` on, in one query: a search walks its days from the newest for each query,
   * so two blocks asked for apart read the first block's entries and records twice.
   */
  async function loadBlocks(block: number, count: number, gen: number): Promise<void> {
    const filter = deps.currentFilter()
    if (!filter) return
    const page = await appCache().history.queryPage(
      { ...filter, order: deps.order.value, offset: block * BLOCK, limit: count * BLOCK },
      deps.dayCounts(),
    )
    await deps.loadFacts(filter.connectionId, page)
    if (gen !== generation) return
    const nextRows = new Map(rows.value)
    page.forEach((r, i) => nextRows.set(block * BLOCK + i, r))
    rows.value = nextRows
  }

  return { rows, ensureRows, reset, isCurrent: (gen) => gen === generation, fill }
}
