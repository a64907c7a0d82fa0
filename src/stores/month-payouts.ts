/**
 * A month's payouts from the cache: the roll-forward per currency and the readings it follows, read once
 * for Month-end (its section, the close checklist line and the workbook's sheets), and what closing the
 * month keeps of it for the next one.
 *
 * What is read: the connection's transfers and status changes (a few per month), and the ledgers created
 * before the month's end. When last month's close recorded its roll-forward, the ledgers of the transfers
 * it saw paid that are still paid at this month's end are not read: their sum less their amount is the
 * difference that close recorded, so the figures are those of a full read (tests/unit compares both) and
 * the read grows with the month and what is still open, not with the history. Records are read for the
 * month's own ledgers only (earlier ones are summed by their net, which needs no record).
 */
import { appCache } from '../db/cache'
import type { LedgerRow } from '../db/payout-rows'
import { PayoutsRepository } from '../db/payouts-repository'
import type { CachedConnection, PayoutCloseRecord, RecordKey } from '../domain/records'
import { periodRange, previousPeriod, type EpochRange } from '../domain/periods'
import type { Availability } from '../reconcile/close-checklist'
import {
  detectReadings,
  payoutCloseOf,
  rollForwardOfMonth,
  type ReadingsReport,
  type RecordAmount,
  type RollForward,
  isPaidAt,
  transferTimelines,
  type SettledTransfer,
  type TransferTimeline,
} from '../reconcile/payouts'
import { readPayoutReadingSetting } from './payout-readings-setting'

export interface MonthPayouts {
  rollForward: RollForward
  readings: ReadingsReport
  /** What closing this month keeps for the next one. */
  close: PayoutCloseRecord
  /** Ledgers read: the month's and those still open at its start (all before its end without a close). */
  ledgersRead: number
}

export interface LoadMonthPayoutsOptions {
  /** false: read every ledger before the month's end even when last month's close allows less. */
  bounded?: boolean
}

const byTime = (a: LedgerRow, b: LedgerRow): number =>
  a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)

/**
 * The month's payouts; `null` when payouts were never synced for the connection (no checklist line),
 * unavailable when the service refused them (the line says so).
 */
export async function loadMonthPayouts(
  connection: CachedConnection,
  period: string,
  options: LoadMonthPayoutsOptions = {},
): Promise<Availability<MonthPayouts> | null> {
  const repo = new PayoutsRepository(appCache().db)
  const state = await repo.syncState(connection.id)
  if (state.access.code === 'forbidden') return { available: false }
  const range = periodRange(period, connection.timeZone)
  const [transfers, statusChanges, setting, previousLock] = await Promise.all([
    repo.allTransfers(connection.id),
    repo.allStatusChanges(connection.id),
    readPayoutReadingSetting(connection.id),
    appCache().locks.get(connection.id, previousPeriod(period)),
  ])
  const previous = previousLock?.payoutClose
  const timelines = transferTimelines(transfers, statusChanges).byId
  const read =
    previous && options.bounded !== false
      ? await readBounded(repo, connection.id, range, timelines, previous)
      : { ledgers: await repo.ledgersBefore(connection.id, range.to), settled: [] }
  const { ledgers, settled } = read
  if (state.access.code === 'unknown' && transfers.length === 0 && ledgers.length === 0) return null
  const skipped = new Set(settled.map((s) => s.transferId))
  const monthLedgerIds = ledgers.filter((l) => l.createdAt >= range.from).map((l) => l.id)
  const found = await repo.recordsByLedgerIds(connection.id, monthLedgerIds)
  const ledgerRecords = new Map<string, RecordKey[]>()
  const records = new Map<RecordKey, RecordAmount>()
  for (const [ledgerId, { history }] of found) {
    if (!history || (history.type !== 'charge' && history.type !== 'refund')) continue
    ledgerRecords.set(ledgerId, [history.key])
    records.set(history.key, { amount: history.amount, currency: history.currency, type: history.type })
  }
  const given = {
    ledgers,
    transfers: skipped.size > 0 ? transfers.filter((t) => !skipped.has(t.id)) : transfers,
    statusChanges: skipped.size > 0 ? statusChanges.filter((c) => !skipped.has(c.transferId)) : statusChanges,
    ledgerRecords,
    records,
    transferFees: setting.transferFees,
  }
  const readings = detectReadings({ ...given, timeZone: connection.timeZone, setting: setting.readings })
  const rollForward = rollForwardOfMonth({
    ...given,
    period,
    timeZone: connection.timeZone,
    readings: readings.readings,
    settled,
    // Last month's close: this opening is checked against the closing it recorded.
    ...(previous ? { previousClosing: previous.closing } : {}),
  })
  const paidAtEnd = [...timelines.values()].filter((tl) => isPaidAt(tl, range.to)).map((tl) => tl.transfer.id)
  const close = payoutCloseOf(rollForward, paidAtEnd)
  return { available: true, value: { rollForward, readings, close, ledgersRead: ledgers.length } }
}

/**
 * The ledgers the month needs when last month's close recorded its paid transfers: every ledger except
 * those of the transfers that close saw paid and that are still paid at this month's start and end (and
 * hold no ledger of the month, and take part in no repayment), with what that close recorded for each.
 */
async function readBounded(
  repo: PayoutsRepository,
  connectionId: string,
  range: EpochRange,
  timelines: ReadonlyMap<string, TransferTimeline>,
  previous: PayoutCloseRecord,
): Promise<{ ledgers: LedgerRow[]; settled: SettledTransfer[] }> {
  const inFull = new Set(previous.readInFull ?? [])
  const candidates = [...timelines.values()].filter(
    (tl) =>
      Object.hasOwn(previous.paidDifferences, tl.transfer.id) &&
      !inFull.has(tl.transfer.id.toLowerCase()) &&
      tl.paidDated &&
      isPaidAt(tl, range.from) &&
      isPaidAt(tl, range.to),
  )
  const [outside, monthIds] = await Promise.all([
    repo.ledgersOutsideTransfers(
      connectionId,
      candidates.map((tl) => tl.transfer.id),
    ),
    repo.ledgerIdsBetween(connectionId, range.from, range.to),
  ])
  // A skipped transfer that holds a ledger of the month is read in full instead.
  const have = new Set(outside.map((l) => l.id))
  const missing = monthIds.filter((id) => !have.has(id))
  const holding = new Set<string>()
  if (missing.length > 0)
    for (const [, l] of await repo.ledgersByIds(connectionId, missing)) holding.add(l.transferKey)
  const extra = await Promise.all([...holding].map((key) => repo.ledgersOfTransfer(connectionId, key)))
  const ledgers = [...outside, ...extra.flat()].filter((l) => l.createdAt < range.to).sort(byTime)
  const settled = candidates
    .filter((tl) => !holding.has(tl.transfer.id))
    .map((tl) => ({
      transferId: tl.transfer.id,
      currency: tl.transfer.currency,
      difference: previous.paidDifferences[tl.transfer.id] ?? 0,
    }))
  return { ledgers, settled }
}
