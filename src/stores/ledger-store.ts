/**
 * The ledger: a filtered, ordered window over the cache, the accountant's selection, and marking with
 * notes and undo. This store only composes its parts, one concern each, in src/stores/ledger/:
 * filters (pure), query (refresh and count) over row-blocks (the block cache), row-facts (marks, fees,
 * store names beside the rows), locks, selection, marking, audit and csv-export. Closing a month lives in
 * Month-end (month-end-store).
 */
import { defineStore } from 'pinia'
import { ref, triggerRef } from 'vue'
import { useLedgerAudit } from './ledger/audit'
import { useLedgerCsvExport } from './ledger/csv-export'
import { useLedgerLocks } from './ledger/locks'
import { useLedgerMarking } from './ledger/marking'
import type { LedgerNotice } from './ledger/notice'
import { useLedgerQuery } from './ledger/query'
import { useRowFacts } from './ledger/row-facts'
import { useLedgerSelection } from './ledger/selection'

export { BLOCK } from './ledger/row-blocks'
export type { LedgerFilters, PeriodKind } from './ledger/filters'
export type { LedgerNotice } from './ledger/notice'

export const useLedgerStore = defineStore('ledger', () => {
  const notice = ref<LedgerNotice | null>(null)
  const facts = useRowFacts()
  const query = useLedgerQuery(facts, notice)
  const locks = useLedgerLocks(query.connectionId, query.filters)
  const selection = useLedgerSelection(query.rows)
  const marking = useLedgerMarking(query, selection, facts, notice)
  const audit = useLedgerAudit(query.connectionId)

  /**
   * Re-reads the marks of the loaded rows and the locks, keeping the rows, order and selection: for marks
   * and closes written by something other than this view (the team server's decisions).
   */
  async function refreshMarks(): Promise<void> {
    const id = query.connectionId.value
    if (!id) return
    await locks.loadLocks()
    await facts.loadFacts(id, [...query.rows.value.values()])
  }

  async function init(): Promise<void> {
    await query.loadConnections()
    await marking.loadActor()
    await locks.loadLocks()
    await query.refresh()
  }

  return {
    connections: query.connections,
    connectionId: query.connectionId,
    connection: query.connection,
    timeZone: query.timeZone,
    filters: query.filters,
    order: query.order,
    sortColumn: query.sortColumn,
    sortBy: query.sortBy,
    locale: query.locale,
    fees: facts.fees,
    activePeriod: locks.activePeriod,
    periodLabel: query.periodLabel,
    total: query.total,
    counted: query.counted,
    loading: query.loading,
    rows: query.rows,
    marks: facts.marks,
    locks: locks.locks,
    periodLocked: locks.periodLocked,
    selection: selection.selection,
    focused: selection.focused,
    notice,
    lastBatch: marking.lastBatch,
    marking: marking.marking,
    cancelMarking: marking.cancelMarking,
    storeNames: facts.storeNames,
    init,
    refresh: query.refresh,
    refreshMarks,
    ensureRows: query.ensureRows,
    select: selection.select,
    clearSelection: selection.clearSelection,
    focusRow: selection.focusRow,
    applyMarks: marking.applyMarks,
    undo: marking.undo,
    auditFor: audit.auditFor,
    recordsByKey: audit.recordsByKey,
    resetFilters: query.resetFilters,
    exportCsv: useLedgerCsvExport(query, notice),
    loadLocks: locks.loadLocks,
    triggerRows: () => triggerRef(query.rows),
  }
})
