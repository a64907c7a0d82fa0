/** Month-end: the summary of one connection's month from the cache, and what is left before closing it. */
import { toAppError, type AppError } from '../platform/app-error'
import { defineStore } from 'pinia'
import { ref, shallowRef } from 'vue'
import { appCache } from '../db/cache'
import type { CachedConnection, ChargeRecord, HistoryRecord, MarkRecord, RecordKey } from '../db/records'
import { crossCheck, type Difference } from '../reconcile/cross-check'
import { summarizeMonth, type MonthSummary } from '../reconcile/month-summary'
import { nextPeriod, periodOf, periodRange, previousPeriod } from '../reconcile/periods'
import { ImportsRepository } from '../db/imports-repository'
import { exportMonthWorkbook } from '../export/workbook-client'
import { useAppStore } from './app-store'

export interface MonthData {
  connection: CachedConnection
  period: string
  history: HistoryRecord[]
  charges: ChargeRecord[]
  marks: Map<RecordKey, MarkRecord>
  summary: MonthSummary
  differences: Difference[]
  storeNames: Map<string, string>
  locked: boolean
}

/** Everything the month's summary, workbook and exceptions are built from, read once from the cache. */
export async function loadMonth(connection: CachedConnection, period: string): Promise<MonthData> {
  const cache = appCache()
  const range = periodRange(period, connection.timeZone)
  const history = await cache.history.inRange(connection.id, range.from, range.to)
  const charges = await cache.charges.inRange(connection.id, range.from, range.to)
  const found = await cache.marks.getMany(connection.id, history)
  const marks = new Map<RecordKey, MarkRecord>()
  found.forEach((m) => m && marks.set(m.key, m))
  const storeNames = new Map<string, string>()
  for (const r of history) storeNames.set(r.storeId, r.raw.store_name)
  return {
    connection,
    period,
    history,
    charges,
    marks,
    summary: summarizeMonth({ history, charges, marks, timeZone: connection.timeZone, period }),
    differences: crossCheck(
      history.filter((r) => r.type === 'charge'),
      charges,
    ),
    storeNames,
    locked: await cache.locks.isLocked(connection.id, period),
  }
}

export const useMonthEndStore = defineStore('month-end', () => {
  const connections = ref<CachedConnection[]>([])
  const connectionId = ref<string | null>(null)
  const period = ref(periodOf(Date.now(), Intl.DateTimeFormat().resolvedOptions().timeZone))
  const data = shallowRef<MonthData | null>(null)
  const loading = ref(false)
  const error = ref<AppError | null>(null)

  async function init(): Promise<void> {
    connections.value = await appCache().connections.list()
    if (!connectionId.value) connectionId.value = connections.value[0]?.id ?? null
    const c = connections.value.find((x) => x.id === connectionId.value)
    // The month being closed is usually the last complete one (unless the user already chose one).
    if (c && !data.value && !periodChosen) period.value = previousPeriod(periodOf(Date.now(), c.timeZone))
    await load()
  }

  let periodChosen = false

  function choosePeriod(value: string): void {
    periodChosen = true
    period.value = value
  }

  async function load(): Promise<void> {
    const c = connections.value.find((x) => x.id === connectionId.value)
    if (!c) {
      data.value = null
      return
    }
    loading.value = true
    error.value = null
    try {
      data.value = await loadMonth(c, period.value)
    } catch (e) {
      error.value = toAppError(e)
    } finally {
      loading.value = false
    }
  }

  const exporting = ref<{ sheet: string; rowsWritten: number; totalRows: number } | null>(null)
  const exported = ref<string | null>(null)
  let exportAbort: AbortController | undefined

  /** Writes the month's workbook (all stores, or one) through the host; cancel leaves no file behind. */
  async function exportWorkbook(storeId: string | null): Promise<void> {
    const d = data.value
    if (!d || exporting.value) return
    exportAbort = new AbortController()
    exporting.value = { sheet: '', rowsWritten: 0, totalRows: 0 }
    exported.value = null
    error.value = null
    try {
      const audit = await appCache().audit.listByPeriod(d.connection.id, d.period)
      // Imported lines a day either side of the month: the builder keeps those inside it.
      const unmatched = await new ImportsRepository(appCache().db).unmatchedBetween(
        d.connection.id,
        `${previousPeriod(d.period)}-28`,
        `${nextPeriod(d.period)}-03`,
      )
      const delivered = await exportMonthWorkbook(
        {
          merchantName: d.history[0]?.raw.merchant_name ?? d.connection.label,
          connection: { id: d.connection.id, label: d.connection.label, timeZone: d.connection.timeZone },
          period: d.period,
          storeId,
          storeNames: d.storeNames,
          history: d.history,
          charges: d.charges,
          marks: d.marks,
          audit,
          generatedAt: Date.now(),
          appVersion: useAppStore().info?.version ?? 'unknown',
          unmatchedImports: unmatched.map((u) => ({
            source: u.source,
            fileName: u.fileName,
            line: u.line,
            orderNumber: u.orderNumber,
            at: u.at,
            amount: u.amount,
            currency: u.currency,
          })),
        },
        { signal: exportAbort.signal, onProgress: (p) => (exporting.value = { ...p }) },
      )
      exported.value = delivered.fileName
    } catch (e) {
      error.value = exportAbort.signal.aborted ? null : toAppError(e)
    } finally {
      exporting.value = null
    }
  }

  function cancelExport(): void {
    exportAbort?.abort()
  }

  return {
    connections,
    connectionId,
    period,
    data,
    loading,
    error,
    exporting,
    exported,
    init,
    load,
    choosePeriod,
    exportWorkbook,
    cancelExport,
  }
})
