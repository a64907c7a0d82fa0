/**
 * Month-end: the summary of one connection's month from the cache, what is left before closing it (the
 * checklist), and the close itself: confirmed with the closer's name and a note, reopened with a reason
 * and a list of what changed since the close.
 */
import { appError, toAppError, type AppError } from '../platform/app-error'
import { defineStore } from 'pinia'
import { computed, ref, shallowRef } from 'vue'
import { appCache } from '../db/cache'
import type { CachedConnection, ChargeRecord, HistoryRecord, RecordKey } from '../domain/records'
import { planClosePeriod, planReopenPeriod } from '../reconcile/marking'
import { nextPeriod, periodOf, periodRange, previousPeriod } from '../domain/periods'
import { ImportsRepository } from '../db/imports-repository'
import { legacyHistoryUnfiled } from '../db/legacy-move'
import { exportMonthWorkbookFrom } from '../export/workbook-client'
import { transferFeeWithTax } from '../reconcile/deposits'
import type { LinkedRow } from '../reconcile/match-links'
import { readPayoutModel } from './match-store'
import { loadMonth, snapshotOf, type MonthData } from './month-load'
import { cacheMonthSource, monthMerchantName } from './month-workbook-source'
import { sharedDepositTie } from './deposit-tie'
import { useAppStore } from './app-store'
import { newestAnswer } from './newest-answer'
import { useTeamCloseStore } from './team-close-store'

export type { MonthData } from './month-load'

/**
 * What the workbook needs to show match links: the connection's imported rows with their
 * file names, the records its deposits pay outside the month (a payout spans a month end), their charges,
 * and the payout model's transfer fee with tax.
 */
async function matchLinksOf(
  connectionId: string,
  period: string,
  timeZone: string,
  have: ReadonlySet<RecordKey>,
): Promise<{
  importedRows: LinkedRow[]
  linkedHistory: HistoryRecord[]
  linkedCharges: ChargeRecord[]
  transferFee: number
}> {
  const cache = appCache()
  const importedRows = await new ImportsRepository(cache.db).linkedRows(connectionId)
  const range = periodRange(period, timeZone)
  const missing = [
    ...new Set(
      importedRows
        .filter((r) => r.source === 'bank' && r.at >= range.from && r.at < range.to)
        .flatMap((r) => r.matchedKeys)
        .filter((k) => !have.has(k)),
    ),
  ]
  const linkedHistory = (await cache.history.getMany(connectionId, missing)).filter(
    (r): r is HistoryRecord => r !== undefined,
  )
  const linkedCharges = await cache.charges.ofChargeRows(connectionId, linkedHistory)
  const model = await readPayoutModel(connectionId)
  return {
    importedRows,
    linkedHistory,
    linkedCharges,
    transferFee: transferFeeWithTax(model.transferFee, model.transferFeeTaxPercent),
  }
}

/** Why a close or reopen was refused; the view words it (i18n). */
export type CloseRefusal = 'needsName' | 'needsAcknowledge' | 'needsNote' | 'needsReason' | 'alreadyChanged'

export const useMonthEndStore = defineStore('month-end', () => {
  const connections = ref<CachedConnection[]>([])
  const connectionId = ref<string | null>(null)
  const period = ref(periodOf(Date.now(), Intl.DateTimeFormat().resolvedOptions().timeZone))
  const data = shallowRef<MonthData | null>(null)
  const loading = ref(false)
  const error = ref<AppError | null>(null)
  /** The name set in Settings; null until one is set (a close needs it). */
  const closerName = ref<string | null>(null)
  const closeRefusal = ref<CloseRefusal | null>(null)
  const closing = ref(false)
  const canClose = computed(() => data.value !== null && !data.value.locked && closerName.value !== null)

  async function loadCloserName(): Promise<void> {
    const name = await appCache().settings.getRaw('actorName')
    closerName.value = typeof name === 'string' && name.trim() ? name.trim() : null
  }

  /**
   * Closes the month as `closerName`, with an optional note. While the checklist has blocking items the
   * close needs `acknowledged` and a note saying why; the lock keeps a snapshot of the month's records.
   */
  async function closeMonth(note: string, acknowledged: boolean): Promise<boolean> {
    closeRefusal.value = null
    await loadCloserName()
    const d = data.value
    if (!d || d.locked || closing.value) return false
    if (closerName.value === null) return refuse('needsName')
    if (d.checklist.blocking > 0 && !acknowledged) return refuse('needsAcknowledge')
    if (d.checklist.blocking > 0 && note.trim() === '') return refuse('needsNote')
    closing.value = true
    try {
      const plan = planClosePeriod({
        connectionId: d.connection.id,
        period: d.period,
        locks: new Set<string>(),
        actor: closerName.value,
        now: Date.now(),
        details: {
          note,
          snapshot: Object.fromEntries(snapshotOf(d.digests)),
          // The roll-forward's closing as closed: next month's opening is checked against it.
          ...(d.payouts?.available ? { payoutClose: d.payouts.value.close } : {}),
        },
      })
      const lock = plan.puts[0]
      const entry = plan.audit[0]
      // false: closed meanwhile (another window); the reload shows that close.
      const done = lock && entry ? await appCache().locks.lock(lock, entry) : false
      if (!done) closeRefusal.value = 'alreadyChanged'
      await load()
      return done
    } catch (e) {
      error.value = toAppError(e)
      return false
    } finally {
      closing.value = false
    }
  }

  /** Reopens the month; the reason is required and audited with the close it undoes. */
  async function reopenMonth(reason: string): Promise<boolean> {
    closeRefusal.value = null
    await loadCloserName()
    const d = data.value
    if (!d?.lock || closing.value) return false
    if (reason.trim() === '') return refuse('needsReason')
    closing.value = true
    try {
      const plan = planReopenPeriod({
        connectionId: d.connection.id,
        period: d.period,
        locks: new Map([[d.period, d.lock]]),
        actor: closerName.value ?? d.lock.lockedBy,
        now: Date.now(),
        reason,
      })
      const entry = plan.audit[0]
      const done = entry ? await appCache().locks.unlock(d.connection.id, d.period, entry) : false
      if (!done) closeRefusal.value = 'alreadyChanged'
      await load()
      return done
    } catch (e) {
      error.value = toAppError(e)
      return false
    } finally {
      closing.value = false
    }
  }

  function refuse(reason: CloseRefusal): false {
    closeRefusal.value = reason
    return false
  }

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

  const monthRead = newestAnswer()

  /**
   * Reads the chosen month. Reads overlap (the first month on opening, a month chosen meanwhile, a reload
   * after a verification or a sync) and can end out of order: only the newest read's month or error is
   * shown, so a slow read of the month left behind never replaces the month chosen since.
   */
  async function load(): Promise<void> {
    const newest = monthRead.ask()
    const c = connections.value.find((x) => x.id === connectionId.value)
    if (!c) {
      data.value = null
      return
    }
    loading.value = true
    error.value = null
    try {
      await loadCloserName()
      // Records an older version stored, not yet in their days' rows, would be missing from every figure:
      // no month is shown (so none is closed or exported) until they are.
      if (await legacyHistoryUnfiled(appCache().db)) {
        if (newest()) {
          data.value = null
          error.value = appError('history_filing')
        }
        return
      }
      const month = await loadMonth(c, period.value)
      if (newest()) data.value = month
    } catch (e) {
      if (newest()) error.value = toAppError(e)
    } finally {
      if (newest()) loading.value = false
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
      // The month's records are read a day at a time as the workbook is written, never whole.
      const source = await cacheMonthSource({
        connectionId: d.connection.id,
        period: d.period,
        timeZone: d.connection.timeZone,
        digests: d.digests,
        chargeDigests: d.chargeDigests,
        storeNames: d.storeNames,
      })
      const monthKeys = new Set(source.digests.map((r) => r.key))
      const links = await matchLinksOf(d.connection.id, d.period, d.connection.timeZone, monthKeys)
      // The bank deposits tied to transfers: the workbook lists what does not tie with the bad input.
      const tie = d.payouts?.available ? await sharedDepositTie(d.connection) : null
      const team = await useTeamCloseStore().workbookTeam(d.connection.id)
      const merchantName = await monthMerchantName(d.connection.id, source.digests)
      const delivered = await exportMonthWorkbookFrom(
        {
          merchantName: merchantName ?? d.connection.label,
          connection: { id: d.connection.id, label: d.connection.label, timeZone: d.connection.timeZone },
          period: d.period,
          storeId,
          marks: d.marks,
          audit,
          generatedAt: Date.now(),
          close: d.lock
            ? { closedAt: d.lock.lockedAt, closedBy: d.lock.lockedBy, note: d.lock.note ?? null }
            : null,
          quarantined: d.quarantined,
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
          ...links,
          team,
          ...(d.payouts?.available
            ? { payouts: { ...d.payouts.value, ...(tie ? { tie: tie.tie } : {}) } }
            : {}),
        },
        source,
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
    closerName,
    closeRefusal,
    closing,
    canClose,
    closeMonth,
    reopenMonth,
    init,
    load,
    choosePeriod,
    exportWorkbook,
    cancelExport,
  }
})
