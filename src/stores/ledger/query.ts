/**
 * The ledger's query: which connection, filters and order, the rows they select (through the block cache)
 * and how many there are. A refresh shows the first rows before the count; a sort by a column other than
 * date loads the whole (small enough) set and sorts it in memory.
 */
import { computed, reactive, ref, type ComputedRef, type Ref } from 'vue'
import { appCache } from '../../db/cache'
import type { DayCounts } from '../../db/day-counts'
import type { HistoryFilter } from '../../db/history-repository'
import type { CachedConnection } from '../../domain/records'
import { toAppError } from '../../platform/app-error'
import { IN_MEMORY_SORT_LIMIT, sortRows, type SortColumn } from '../ledger-sort'
import { emptyFilters, historyFilterOf, periodLabelOf, type LedgerFilters } from './filters'
import type { LedgerNotice } from './notice'
import { BLOCK, useRowBlocks, type RowBlocks } from './row-blocks'
import type { RowFacts } from './row-facts'

export interface LedgerQuery extends Pick<RowBlocks, 'rows' | 'ensureRows'> {
  connections: Ref<CachedConnection[]>
  connectionId: Ref<string | null>
  connection: ComputedRef<CachedConnection | null>
  /** The connection's accounting time zone (the machine's when there is no connection). */
  timeZone: ComputedRef<string>
  filters: LedgerFilters
  order: Ref<'asc' | 'desc'>
  /** Date sorts through the index at any size; another column sorts in memory (IN_MEMORY_SORT_LIMIT). */
  sortColumn: Ref<SortColumn>
  /** The display language: text sorts follow its collation. */
  locale: Ref<string>
  total: Ref<number>
  /** False while the total is provisional (the count is still running). */
  counted: Ref<boolean>
  loading: Ref<boolean>
  currentFilter: () => HistoryFilter | null
  /** Reads the connections and keeps the chosen one when it still exists. */
  loadConnections: () => Promise<void>
  refresh: () => Promise<void>
  /** The count of an unfinished refresh, for "mark all matching" (which needs every match anyway). */
  exactTotal: () => Promise<number>
  sortBy: (column: SortColumn) => void
  resetFilters: () => void
  periodLabel: () => string
}

/** A filter's connection and time range: what a warm of its token parts covers. */
const periodOf = (filter: HistoryFilter | null): string | null =>
  filter ? `${filter.connectionId} ${filter.from} ${filter.to}` : null

export function useLedgerQuery(facts: RowFacts, notice: Ref<LedgerNotice | null>): LedgerQuery {
  const connections = ref<CachedConnection[]>([])
  const connectionId = ref<string | null>(null)
  const filters = reactive<LedgerFilters>(emptyFilters())
  const order = ref<'asc' | 'desc'>('desc')
  const sortColumn = ref<SortColumn>('date')
  const locale = ref('en')
  const total = ref(0)
  const counted = ref(true)
  const loading = ref(false)

  const connection = computed(() => connections.value.find((c) => c.id === connectionId.value) ?? null)
  const timeZone = computed(
    () => connection.value?.timeZone ?? Intl.DateTimeFormat().resolvedOptions().timeZone,
  )
  const currentFilter = (): HistoryFilter | null =>
    historyFilterOf(connectionId.value, filters, timeZone.value)
  /** The period whose search token parts were last warmed (warmSearch). */
  let warmed: string | null = null
  /** The current filter's matches per day, once counted: a block deep in the result starts at its day. */
  let dayCounts: DayCounts | null = null
  const blocks = useRowBlocks({
    currentFilter,
    order,
    total,
    dayCounts: () => dayCounts,
    loadFacts: facts.loadFacts,
  })
  const { rows } = blocks

  async function loadConnections(): Promise<void> {
    connections.value = await appCache().connections.list()
    if (!connectionId.value || !connections.value.some((c) => c.id === connectionId.value))
      connectionId.value = connections.value[0]?.id ?? null
  }

  /**
   * Re-counts and drops loaded rows: after a filter change, a sync or a mark that moves rows.
   * Shows the first rows before the count: IndexedDB counts a key range by walking it, which takes seconds
   * on a very large cache. Until the count arrives the total is provisional (the rows loaded, plus a block
   * when the first ones were full), so the grid scrolls on and loads as it goes.
   */
  async function refresh(): Promise<void> {
    const gen = blocks.reset()
    dayCounts = null
    const filter = currentFilter()
    if (warmed !== periodOf(filter)) {
      appCache().history.stopWarmingSearch()
      warmed = null
    }
    if (!filter) {
      total.value = 0
      counted.value = true
      return
    }
    loading.value = true
    if (sortColumn.value !== 'date') {
      const sorted = await refreshSorted(filter, gen)
      if (sorted || !blocks.isCurrent(gen)) return
    }
    counted.value = false
    total.value = BLOCK * 2
    try {
      // The first two blocks, in one query (ensureRows groups adjacent missing blocks).
      await blocks.ensureRows(0, BLOCK * 2)
      if (!blocks.isCurrent(gen)) return
      total.value = rows.value.size === BLOCK * 2 ? BLOCK * 3 : rows.value.size
      void countOf(filter)
        .then(({ n, days }) => {
          if (!blocks.isCurrent(gen)) return
          dayCounts = days
          total.value = n
          counted.value = true
          warmSearch(filter)
        })
        .catch((e: unknown) => {
          if (blocks.isCurrent(gen)) notice.value = { kind: 'error', error: toAppError(e) }
        })
    } catch (e) {
      notice.value = { kind: 'error', error: toAppError(e) }
    } finally {
      if (blocks.isCurrent(gen)) loading.value = false
    }
  }

  /**
   * Sorting by a column other than date: count, and when the set is small enough load it all, with marks
   * and fees, and sort it in memory. Returns false (back to date order, with a notice) when it is too large.
   */
  async function refreshSorted(filter: HistoryFilter, gen: number): Promise<boolean> {
    const cache = appCache()
    try {
      const n = await cache.history.count(filter)
      if (!blocks.isCurrent(gen)) return true
      if (n > IN_MEMORY_SORT_LIMIT) {
        notice.value = { kind: 'sortTooLarge', limit: IN_MEMORY_SORT_LIMIT }
        sortColumn.value = 'date'
        return false
      }
      const all = await cache.history.queryPage({ ...filter, order: 'asc', offset: 0, limit: n })
      await facts.loadFacts(filter.connectionId, all)
      if (!blocks.isCurrent(gen)) return true
      const sorted = sortRows(all, sortColumn.value, order.value, {
        fees: facts.fees.value,
        storeName: (id) => facts.storeNames.value.get(id) ?? id,
        locale: locale.value,
      })
      blocks.fill(sorted)
      total.value = sorted.length
      counted.value = true
    } catch (e) {
      notice.value = { kind: 'error', error: toAppError(e) }
    } finally {
      if (blocks.isCurrent(gen)) loading.value = false
    }
    return true
  }

  /**
   * Once a period is shown and counted, its search token parts are read into memory in the background,
   * so a name typed in it a little later counts without reading them; a refresh of another period stops
   * that read.
   */
  function warmSearch(filter: HistoryFilter): void {
    warmed = periodOf(filter)
    void appCache().history.warmSearch(filter.connectionId, filter.from, filter.to)
  }

  /** The filter's count, per day where its pages are read from day digests (the same walk). */
  async function countOf(filter: HistoryFilter): Promise<{ n: number; days: DayCounts | null }> {
    const history = appCache().history
    const days = await history.countByDay(filter)
    return { n: days ? days.total : await history.count(filter), days }
  }

  async function exactTotal(): Promise<number> {
    const filter = currentFilter()
    if (!filter) return 0
    if (counted.value) return total.value
    return appCache().history.count(filter)
  }

  /** Sorts by a column; the same column again flips the direction. */
  function sortBy(column: SortColumn): void {
    if (sortColumn.value === column) order.value = order.value === 'desc' ? 'asc' : 'desc'
    else {
      sortColumn.value = column
      order.value = column === 'date' ? 'desc' : 'asc'
    }
  }

  return {
    connections,
    connectionId,
    connection,
    timeZone,
    filters,
    order,
    sortColumn,
    locale,
    total,
    counted,
    loading,
    rows,
    ensureRows: blocks.ensureRows,
    currentFilter,
    loadConnections,
    refresh,
    exactTotal,
    sortBy,
    resetFilters: () => {
      Object.assign(filters, emptyFilters())
    },
    periodLabel: () => periodLabelOf(filters),
  }
}
