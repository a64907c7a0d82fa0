/**
 * A month's payouts from the cache: the roll-forward per currency and the readings it follows, read once
 * for Month-end (its section, the close checklist line and the workbook's sheets). Reads only what the
 * month needs: ledgers created before the month's end, the connection's transfers and status changes, and
 * the records of the month's own ledgers (earlier ones are summed by their net, which needs no record).
 */
import { appCache } from '../db/cache'
import { PayoutsRepository } from '../db/payouts-repository'
import type { CachedConnection, RecordKey } from '../domain/records'
import { periodRange, previousPeriod } from '../domain/periods'
import type { Availability } from '../reconcile/close-checklist'
import {
  detectReadings,
  rollForwardOfMonth,
  type ReadingsReport,
  type RecordAmount,
  type RollForward,
} from '../reconcile/payouts'
import { readPayoutReadingSetting } from './payout-readings-setting'

export interface MonthPayouts {
  rollForward: RollForward
  readings: ReadingsReport
}

/**
 * The month's payouts; `null` when payouts were never synced for the connection (no checklist line),
 * unavailable when the service refused them (the line says so).
 */
export async function loadMonthPayouts(
  connection: CachedConnection,
  period: string,
): Promise<Availability<MonthPayouts> | null> {
  const repo = new PayoutsRepository(appCache().db)
  const state = await repo.syncState(connection.id)
  if (state.access.code === 'forbidden') return { available: false }
  const range = periodRange(period, connection.timeZone)
  const [transfers, ledgers, statusChanges, setting, previousLock] = await Promise.all([
    repo.allTransfers(connection.id),
    repo.ledgersBefore(connection.id, range.to),
    repo.allStatusChanges(connection.id),
    readPayoutReadingSetting(connection.id),
    appCache().locks.get(connection.id, previousPeriod(period)),
  ])
  if (state.access.code === 'unknown' && transfers.length === 0 && ledgers.length === 0) return null
  const monthLedgerIds = ledgers.filter((l) => l.createdAt >= range.from).map((l) => l.id)
  const found = await repo.recordsByLedgerIds(connection.id, monthLedgerIds)
  const ledgerRecords = new Map<string, RecordKey[]>()
  const records = new Map<RecordKey, RecordAmount>()
  for (const [ledgerId, { history }] of found) {
    if (!history || (history.type !== 'charge' && history.type !== 'refund')) continue
    ledgerRecords.set(ledgerId, [history.key])
    records.set(history.key, { amount: history.amount, currency: history.currency, type: history.type })
  }
  const transferFees = setting.transferFees
  const readings = detectReadings({
    ledgers,
    transfers,
    statusChanges,
    ledgerRecords,
    records,
    transferFees,
    timeZone: connection.timeZone,
    setting: setting.readings,
  })
  const rollForward = rollForwardOfMonth({
    period,
    timeZone: connection.timeZone,
    ledgers,
    transfers,
    statusChanges,
    ledgerRecords,
    records,
    readings: readings.readings,
    transferFees,
    // Last month's close: this opening is checked against the closing it recorded.
    ...(previousLock?.payoutClose ? { previousClosing: previousLock.payoutClose.closing } : {}),
  })
  return { available: true, value: { rollForward, readings } }
}
