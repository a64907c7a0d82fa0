/**
 * The ledger: a filtered, ordered window over the cache, the accountant's selection, and marking with
 * notes, undo and period close. Rows are read in blocks through the history repository's indexes; the
 * rules (what a mark does, what a lock refuses) are the pure plans of src/reconcile.
 */
import { toAppError, type AppError } from '../platform/app-error'
import { defineStore } from 'pinia'
import { computed, reactive, ref, shallowRef, toRaw, triggerRef } from 'vue'
import type { HistoryType, Mode } from '../../electron/shared/payment-api'
import { appCache } from '../db/cache'
import type { HistoryFilter, ReconciledFilter } from '../db/history-repository'
import type {
  AuditEntry,
  CachedConnection,
  HistoryRecord,
  MarkRecord,
  MarkRef,
  PeriodLock,
  RecordKey,
} from '../db/records'
import { planMarks, planUndo, type MarkAction, type MarkSubject } from '../reconcile/marking'
import { dayRange, periodOf, periodRange } from '../reconcile/periods'
import type { ChargeFee } from '../reconcile/row-figures'
import { IN_MEMORY_SORT_LIMIT, sortRows, type SortColumn } from './ledger-sort'
import { exportLedgerCsv } from '../export/workbook-client'

export const BLOCK = 100
const FOREVER = 8.64e15

/** How the ledger's period is chosen: a month (closable), a day, or a custom range of days. */
export type PeriodKind = 'month' | 'day' | 'range'

export interface LedgerFilters {
  periodKind: PeriodKind
  /** YYYY-MM in the accounting time zone; the only kind a close or reopen applies to. */
  period: string | null
  /** YYYY-MM-DD in the accounting time zone. */
  day: string | null
  /** Inclusive days YYYY-MM-DD; either end may be open. */
  rangeFrom: string | null
  rangeTo: string | null
  storeId: string | null
  type: HistoryType | null
  status: string | null
  mode: Mode | null
  currency: string | null
  brand: string | null
  reconciled: ReconciledFilter | null
  search: string
}

export type LedgerNotice =
  | { kind: 'marked'; action: MarkAction; changed: number; refused: number }
  | { kind: 'undone'; changed: number; refused: number }
  | { kind: 'locked'; period: string }
  | { kind: 'closed'; period: string }
  | { kind: 'reopened'; period: string }
  | { kind: 'sortTooLarge'; limit: number }
  | { kind: 'cancelled' }
  | { kind: 'error'; error: AppError }

const emptyFilters = (): LedgerFilters => ({
  periodKind: 'month',
  period: null,
  day: null,
  rangeFrom: null,
  rangeTo: null,
  storeId: null,
  type: null,
  status: null,
  mode: null,
  currency: null,
  brand: null,
  reconciled: null,
  search: '',
})

export const useLedgerStore = defineStore('ledger', () => {
  const connections = ref<CachedConnection[]>([])
  const connectionId = ref<string | null>(null)
  const filters = reactive<LedgerFilters>(emptyFilters())
  const order = ref<'asc' | 'desc'>('desc')
  /** Date sorts through the index at any size; another column sorts in memory (IN_MEMORY_SORT_LIMIT). */
  const sortColumn = ref<SortColumn>('date')
  const locale = ref('en')
  /** Fee facts of the loaded charge rows, by charge id, from the charge list. */
  const fees = shallowRef(new Map<string, ChargeFee>())
  const total = ref(0)
  /** False while the total is provisional (the count is still running). */
  const counted = ref(true)
  const loading = ref(false)
  /** Loaded rows by position in the current filter and order. */
  const rows = shallowRef(new Map<number, HistoryRecord>())
  const marks = shallowRef(new Map<RecordKey, MarkRecord>())
  const locks = shallowRef(new Map<string, PeriodLock>())
  const selection = ref(new Set<RecordKey>())
  const anchor = ref<number | null>(null)
  const focused = ref(0)
  const notice = ref<LedgerNotice | null>(null)
  const lastBatch = shallowRef<AuditEntry[] | null>(null)
  /** The records of lastBatch by key: their time locates their marks when the batch is undone. */
  let lastBatchRefs: MarkRef[] = []
  /** A bulk mark or undo in progress (for the view's progress line and its Cancel), or null. */
  const marking = ref<{ phase: 'reading' | 'writing'; records: number } | null>(null)
  let markingAbort: AbortController | null = null
  const actor = ref('accountant')
  const storeNames = shallowRef(new Map<string, string>())
  let generation = 0
  const blocks = new Map<number, Promise<void>>()

  const connection = computed(() => connections.value.find((c) => c.id === connectionId.value) ?? null)
  const timeZone = computed(
    () => connection.value?.timeZone ?? Intl.DateTimeFormat().resolvedOptions().timeZone,
  )
  /** The month whose lock applies: only a month filter can be closed or reopened. */
  const activePeriod = computed(() => (filters.periodKind === 'month' ? filters.period : null))
  const periodLocked = computed(() => (activePeriod.value ? locks.value.has(activePeriod.value) : false))

  /** The instants the period filter covers, in the accounting time zone; [0, FOREVER) when none. */
  function currentRange(): { from: number; to: number } {
    const zone = timeZone.value
    if (filters.periodKind === 'month' && filters.period) return periodRange(filters.period, zone)
    if (filters.periodKind === 'day' && filters.day) return dayRange(filters.day, zone)
    if (filters.periodKind === 'range' && (filters.rangeFrom || filters.rangeTo)) {
      const from = filters.rangeFrom ? dayRange(filters.rangeFrom, zone).from : 0
      const to = filters.rangeTo ? dayRange(filters.rangeTo, zone).to : FOREVER
      return { from, to: Math.max(from, to) }
    }
    return { from: 0, to: FOREVER }
  }

  function currentFilter(): HistoryFilter | null {
    if (!connectionId.value) return null
    const range = currentRange()
    const f: HistoryFilter = { connectionId: connectionId.value, from: range.from, to: range.to }
    if (filters.storeId) f.storeId = filters.storeId
    if (filters.type) f.type = filters.type
    if (filters.status) f.status = filters.status
    if (filters.mode) f.mode = filters.mode
    if (filters.currency) f.currency = filters.currency
    if (filters.brand) f.brand = filters.brand
    if (filters.reconciled) f.reconciled = filters.reconciled
    if (filters.search.trim()) f.search = filters.search.trim()
    return f
  }

  async function init(): Promise<void> {
    const cache = appCache()
    connections.value = await cache.connections.list()
    if (!connectionId.value || !connections.value.some((c) => c.id === connectionId.value))
      connectionId.value = connections.value[0]?.id ?? null
    const name = await cache.settings.getRaw('actorName')
    actor.value = typeof name === 'string' && name.trim() ? name : 'accountant'
    await loadLocks()
    await refresh()
  }

  async function loadLocks(): Promise<void> {
    if (!connectionId.value) return
    const list = await appCache().locks.list(connectionId.value)
    locks.value = new Map(list.map((l) => [l.period, l]))
  }

  /** Re-counts and drops loaded rows: after a filter change, a sync or a mark that moves rows. */
  /**
   * Shows the first rows before the count: IndexedDB counts a key range by walking it, which takes seconds
   * on a very large cache. Until the count arrives the total is provisional (the rows loaded, plus a block
   * when the first ones were full), so the grid scrolls on and loads as it goes.
   */
  async function refresh(): Promise<void> {
    const gen = ++generation
    blocks.clear()
    rows.value = new Map()
    const filter = currentFilter()
    if (!filter) {
      total.value = 0
      counted.value = true
      return
    }
    loading.value = true
    if (sortColumn.value !== 'date') {
      const sorted = await refreshSorted(filter, gen)
      if (sorted || gen !== generation) return
    }
    counted.value = false
    total.value = BLOCK * 2
    try {
      // The first two blocks, in one query (ensureRows groups adjacent missing blocks).
      await ensureRows(0, BLOCK * 2)
      if (gen !== generation) return
      total.value = rows.value.size === BLOCK * 2 ? BLOCK * 3 : rows.value.size
      void appCache()
        .history.count(filter)
        .then((n) => {
          if (gen !== generation) return
          total.value = n
          counted.value = true
        })
        .catch((e: unknown) => {
          if (gen === generation) notice.value = { kind: 'error', error: toAppError(e) }
        })
    } catch (e) {
      notice.value = { kind: 'error', error: toAppError(e) }
    } finally {
      if (gen === generation) loading.value = false
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
      if (gen !== generation) return true
      if (n > IN_MEMORY_SORT_LIMIT) {
        notice.value = { kind: 'sortTooLarge', limit: IN_MEMORY_SORT_LIMIT }
        sortColumn.value = 'date'
        return false
      }
      const all = await cache.history.queryPage({ ...filter, order: 'asc', offset: 0, limit: n })
      await loadFacts(filter.connectionId, all)
      if (gen !== generation) return true
      const sorted = sortRows(all, sortColumn.value, order.value, {
        fees: fees.value,
        storeName: (id) => storeNames.value.get(id) ?? id,
        locale: locale.value,
      })
      rows.value = new Map(sorted.map((r, i) => [i, r]))
      // Every row is in hand: no block is left to load.
      for (let b = 0; b * BLOCK < sorted.length; b++) blocks.set(b, Promise.resolve())
      total.value = sorted.length
      counted.value = true
    } catch (e) {
      notice.value = { kind: 'error', error: toAppError(e) }
    } finally {
      if (gen === generation) loading.value = false
    }
    return true
  }

  /** Sorts by a column; the same column again flips the direction. */
  function sortBy(column: SortColumn): void {
    if (sortColumn.value === column) order.value = order.value === 'desc' ? 'asc' : 'desc'
    else {
      sortColumn.value = column
      order.value = column === 'date' ? 'desc' : 'asc'
    }
  }

  /** Marks, fees and store names of loaded rows, merged into the maps the grid reads. */
  async function loadFacts(connection: string, page: readonly HistoryRecord[]): Promise<void> {
    const cache = appCache()
    const chargeIds = [...new Set(page.filter((r) => r.type === 'charge').map((r) => r.chargeId))]
    const [pageMarks, charges] = await Promise.all([
      cache.marks.getMany(connection, page),
      cache.charges.getMany(connection, chargeIds),
    ])
    const nextMarks = new Map(marks.value)
    page.forEach((r, i) => {
      const m = pageMarks[i]
      if (m) nextMarks.set(r.key, m)
      else nextMarks.delete(r.key)
    })
    marks.value = nextMarks
    const nextFees = new Map(fees.value)
    charges.forEach((c) => c && nextFees.set(c.id, { feeAmount: c.feeAmount, feeCurrency: c.feeCurrency }))
    fees.value = nextFees
    const names = new Map(storeNames.value)
    let added = false
    for (const r of page)
      if (!names.has(r.storeId) && r.raw.store_name) {
        names.set(r.storeId, r.raw.store_name)
        added = true
      }
    if (added) storeNames.value = names
  }

  /** The count of an unfinished refresh, for "mark all matching" (which needs every match anyway). */
  async function exactTotal(): Promise<number> {
    const filter = currentFilter()
    if (!filter) return 0
    if (counted.value) return total.value
    return appCache().history.count(filter)
  }

  /** Loads the blocks covering rows [start, end); adjacent blocks not loaded yet go in one query. */
  function ensureRows(start: number, end: number): Promise<void> {
    const jobs: Promise<void>[] = []
    const last = Math.ceil(Math.min(end, total.value) / BLOCK)
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
    const filter = currentFilter()
    if (!filter) return
    const cache = appCache()
    const page = await cache.history.queryPage({
      ...filter,
      order: order.value,
      offset: block * BLOCK,
      limit: count * BLOCK,
    })
    await loadFacts(filter.connectionId, page)
    if (gen !== generation) return
    const nextRows = new Map(rows.value)
    page.forEach((r, i) => nextRows.set(block * BLOCK + i, r))
    rows.value = nextRows
  }

  // ---- selection ----

  function select(index: number, mode: 'only' | 'toggle' | 'range'): void {
    const record = rows.value.get(index)
    if (!record) return
    const next = new Set(mode === 'only' ? [] : selection.value)
    if (mode === 'range' && anchor.value !== null) {
      const [a, b] = anchor.value < index ? [anchor.value, index] : [index, anchor.value]
      for (let i = a; i <= b; i++) {
        const r = rows.value.get(i)
        if (r) next.add(r.key)
      }
    } else if (mode === 'toggle' && next.has(record.key)) {
      next.delete(record.key)
      anchor.value = index
    } else {
      next.add(record.key)
      anchor.value = index
    }
    selection.value = next
    focused.value = index
  }

  /**
   * Moves the focus (the record the details show) without touching the ticked rows: reading a record
   * must not drop what the accountant ticked for "Mark selected".
   */
  function focusRow(index: number): void {
    if (rows.value.get(index)) focused.value = index
  }

  function clearSelection(): void {
    selection.value = new Set()
    anchor.value = null
  }

  // ---- marking ----

  /**
   * Marks the selection (the grid's loaded rows) or every record matching the filter (their digests, one
   * read per day: HistoryRepository.markTargets); then the current marks and locks are read, the plan made
   * and written with its audit row in one transaction (MarkingService.planAndApply), so a lock or mark
   * changed meanwhile is seen. The grid's marks map is replaced once.
   */
  async function applyMarks(
    action: MarkAction,
    target: 'selection' | 'matching',
    note?: string,
  ): Promise<void> {
    const filter = currentFilter()
    if (!filter || marking.value) return
    const cache = appCache()
    const abort = (markingAbort = new AbortController())
    marking.value = { phase: 'reading', records: 0 }
    try {
      let records: MarkSubject[]
      if (target === 'matching') {
        records = await cache.history.markTargets(filter)
      } else {
        // A selection is made of loaded rows: take them from the grid, and read only what is gone.
        const wanted = toRaw(selection.value)
        const loaded = [...toRaw(rows.value).values()].filter((r) => wanted.has(r.key))
        const have = new Set(loaded.map((r) => r.key))
        const missing = [...wanted].filter((k) => !have.has(k))
        const found = missing.length > 0 ? await cache.history.getMany(filter.connectionId, missing) : []
        records = [...loaded, ...found.filter((r): r is HistoryRecord => r !== undefined)]
      }
      if (abort.signal.aborted) {
        notice.value = { kind: 'cancelled' }
        return
      }
      if (records.length === 0) return
      marking.value = { phase: 'writing', records: records.length }
      const now = Date.now()
      const { plan } = await cache.marking.planAndApply(
        filter.connectionId,
        records,
        (current) =>
          planMarks({
            action,
            records,
            marks: current.marks,
            locks: current.locks,
            ...(note !== undefined ? { note } : {}),
            actor: actor.value,
            now,
            timeZone: timeZone.value,
          }),
        { signal: abort.signal },
      )
      const changed = plan.puts.length + plan.deletes.length
      if (changed > 0) {
        const touched = new Set(plan.audit.map((e) => e.key))
        lastBatchRefs = records
          .filter((r) => touched.has(r.key))
          .map((r) => ({ key: r.key, createdAt: r.createdAt }))
        lastBatch.value = plan.audit
      }
      updateMarks(plan.puts, plan.deletes)
      notice.value =
        plan.refused.length > 0 && changed === 0
          ? { kind: 'locked', period: refusedPeriod(records, plan.refused[0]?.key) }
          : { kind: 'marked', action, changed, refused: plan.refused.length }
      marking.value = null
      if (filters.reconciled) await refresh()
    } catch (e) {
      // A cancel rolled the transaction back: nothing changed, and the notice says so.
      notice.value = abort.signal.aborted ? { kind: 'cancelled' } : { kind: 'error', error: toAppError(e) }
    } finally {
      marking.value = null
      markingAbort = null
    }
  }

  /** Cancels a running bulk mark; its transaction is aborted, so no mark or audit row of it lands. */
  function cancelMarking(): void {
    markingAbort?.abort()
  }

  function refusedPeriod(records: readonly MarkSubject[], key: RecordKey | undefined): string {
    const r = records.find((x) => x.key === key)
    return r ? periodOf(r.createdAt, timeZone.value) : (filters.period ?? '')
  }

  function updateMarks(puts: MarkRecord[], deletes: RecordKey[]): void {
    const next = new Map(marks.value)
    for (const m of puts) next.set(m.key, m)
    for (const k of deletes) next.delete(k)
    marks.value = next
  }

  async function undo(): Promise<void> {
    const batch = lastBatch.value
    if (!batch || !connectionId.value) return
    const cache = appCache()
    try {
      const { plan } = await cache.marking.planAndApply(connectionId.value, lastBatchRefs, (current) =>
        planUndo({
          entries: batch,
          marks: current.marks,
          locks: current.locks,
          actor: actor.value,
          now: Date.now(),
        }),
      )
      const changed = plan.puts.length + plan.deletes.length
      updateMarks(plan.puts, plan.deletes)
      lastBatch.value = null
      notice.value = { kind: 'undone', changed, refused: plan.refused.length }
      if (filters.reconciled) await refresh()
    } catch (e) {
      notice.value = { kind: 'error', error: toAppError(e) }
    }
  }

  async function auditFor(period: string | null, key?: RecordKey): Promise<AuditEntry[]> {
    if (!connectionId.value) return []
    const cache = appCache()
    const list = key
      ? await cache.audit.listByKey(connectionId.value, key)
      : period
        ? await cache.audit.listByPeriod(connectionId.value, period)
        : await cache.audit.listByConnection(connectionId.value)
    // Newest first: by row (sequence), then by place in the row, reversed.
    return [...list].sort((a, b) => (b.seq ?? 0) - (a.seq ?? 0) || (b.part ?? 0) - (a.part ?? 0))
  }

  /** The current filter's records as CSV (UTF-8 with BOM, formula-guarded), through the host. */
  async function exportCsv(): Promise<string | null> {
    const filter = currentFilter()
    if (!filter) return null
    const cache = appCache()
    try {
      const records =
        sortColumn.value === 'date'
          ? await cache.history.queryPage({
              ...filter,
              order: order.value,
              offset: 0,
              limit: await exactTotal(),
            })
          : // Sorted in memory: every row is loaded, export them in the order shown.
            [...rows.value.entries()].sort(([a], [b]) => a - b).map(([, r]) => r)
      const found = await cache.marks.getMany(filter.connectionId, records)
      const markMap = new Map<RecordKey, MarkRecord>()
      found.forEach((m) => m && markMap.set(m.key, m))
      const name = `closebook-ledger-${periodLabel()}.csv`
      return (await exportLedgerCsv(name, records, markMap, timeZone.value)).fileName
    } catch (e) {
      notice.value = { kind: 'error', error: toAppError(e) }
      return null
    }
  }

  /** The period in a file name: 2026-09, 2026-09-15, 2026-09-01_2026-09-15 or all. */
  function periodLabel(): string {
    if (filters.periodKind === 'month' && filters.period) return filters.period
    if (filters.periodKind === 'day' && filters.day) return filters.day
    if (filters.periodKind === 'range' && (filters.rangeFrom || filters.rangeTo))
      return `${filters.rangeFrom ?? 'start'}_${filters.rangeTo ?? 'now'}`
    return 'all'
  }

  function resetFilters(): void {
    Object.assign(filters, emptyFilters())
  }

  return {
    connections,
    connectionId,
    connection,
    timeZone,
    filters,
    order,
    sortColumn,
    sortBy,
    locale,
    fees,
    activePeriod,
    periodLabel,
    total,
    counted,
    loading,
    rows,
    marks,
    locks,
    periodLocked,
    selection,
    focused,
    notice,
    lastBatch,
    marking,
    cancelMarking,
    storeNames,
    init,
    refresh,
    ensureRows,
    select,
    clearSelection,
    focusRow,
    applyMarks,
    undo,
    auditFor,
    resetFilters,
    exportCsv,
    loadLocks,
    triggerRows: () => triggerRef(rows),
  }
})
