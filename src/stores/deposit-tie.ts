/**
 * The connection's bank deposits tied to the service's own transfers, from the cache: every transfer with
 * its ledgers and status changes, and every line of the bank files imported. One to one; what does not
 * tie is listed (a deposit with no transfer, a paid transfer with no deposit, a failed transfer whose
 * money came back). A transfer paid after the last bank day is not yet due, not an exception.
 */
import { appCache } from '../db/cache'
import type { ClosebookDb } from '../db/database'
import { watchTables, type WatchedInput } from '../db/table-changes'
import { ImportsRepository } from '../db/imports-repository'
import { demoBankStatement } from '../export/demo-bank-statement'
import { PayoutsRepository } from '../db/payouts-repository'
import type { CachedConnection } from '../domain/records'
import {
  composeTransfers,
  detectReadings,
  findRepayments,
  tieDeposits,
  type BankLine,
  type ReadingsReport,
  type Repayments,
  type TieOut,
} from '../reconcile/payouts'
import { PAYOUT_SETTINGS, readPayoutReadingSetting } from './payout-readings-setting'

export interface DepositTie {
  tie: TieOut
  readings: ReadingsReport
  /** What later transfers repaid of failed, canceled or blank ones (and of ledgers carried without one). */
  repayments: Repayments
  /** Bank lines read, and transfers known: a tie-out of nothing says so. */
  bankLines: number
  transfers: number
  /** The demo's bank statement of its paid transfers (SMBC layout); null for a real connection. */
  demoStatement: string | null
}

/** null: payouts were never synced for the connection, or the service refused them. */
export async function loadDepositTie(connection: CachedConnection): Promise<DepositTie | null> {
  const cache = appCache()
  const repo = new PayoutsRepository(cache.db)
  const state = await repo.syncState(connection.id)
  if (state.access.code === 'forbidden') return null
  const [transfers, ledgers, statusChanges, rows, setting] = await Promise.all([
    repo.allTransfers(connection.id),
    repo.ledgersBefore(connection.id, Infinity),
    repo.allStatusChanges(connection.id),
    new ImportsRepository(cache.db).rows(connection.id),
    readPayoutReadingSetting(connection.id),
  ])
  if (transfers.length === 0 && state.access.code === 'unknown') return null
  const bankLines: BankLine[] = rows
    .filter((r) => r.source === 'bank')
    .map((r) => ({
      importId: r.importId,
      line: r.line,
      day: r.day,
      amount: r.amount,
      currency: r.currency,
      description: r.description,
    }))
  const transferFees = setting.transferFees
  const readings = detectReadings({
    ledgers,
    transfers,
    statusChanges,
    ledgerRecords: new Map(),
    records: new Map(),
    bankLines,
    transferFees,
    timeZone: connection.timeZone,
    setting: setting.readings,
  })
  const compositions = composeTransfers({
    ledgers,
    transfers,
    readings: readings.readings,
    transferFees,
  })
  const lastDay = bankLines.reduce<string | undefined>(
    (m, l) => (m === undefined || l.day > m ? l.day : m),
    undefined,
  )
  const tie = tieDeposits({
    transfers,
    statusChanges,
    compositions,
    bankLines,
    timeZone: connection.timeZone,
    ...(lastDay ? { statementTo: lastDay } : {}),
  })
  const demoStatement = connection.isDemo
    ? demoBankStatement({ transfers, statusChanges, compositions, timeZone: connection.timeZone })
    : null
  return {
    tie,
    readings,
    repayments: findRepayments(compositions),
    bankLines: bankLines.length,
    transfers: transfers.length,
    demoStatement,
  }
}

/** What the tie-out is computed from: a write to any of these tables makes a kept result stale. */
export const TIE_INPUTS: readonly WatchedInput[] = [
  'payoutTransfers',
  'payoutLedgers',
  'payoutStatusChanges',
  'payoutSync',
  'imports',
  'importedRows',
  PAYOUT_SETTINGS,
  'connections',
]

interface Kept {
  /** The connection as it was read with (its time zone and demo flag decide the result too). */
  key: string
  result: Promise<DepositTie | null>
}

const kept = new WeakMap<ClosebookDb, Map<string, Kept>>()

function keptOf(db: ClosebookDb): Map<string, Kept> {
  let byConnection = kept.get(db)
  if (!byConnection) {
    const fresh = new Map<string, Kept>()
    kept.set(db, (byConnection = fresh))
    watchTables(db, TIE_INPUTS, () => fresh.clear())
  }
  return byConnection
}

/**
 * The connection's tie-out, computed once and shared by every reader (each record's details asks for it)
 * until a write to what it is computed from (payouts, bank lines, settings, the connection) makes it stale.
 * A failed read is not kept.
 */
export function sharedDepositTie(connection: CachedConnection): Promise<DepositTie | null> {
  const byConnection = keptOf(appCache().db)
  const key = `${connection.timeZone}\u0001${connection.isDemo ? 1 : 0}`
  const found = byConnection.get(connection.id)
  if (found?.key === key) return found.result
  const entry: Kept = { key, result: loadDepositTie(connection) }
  byConnection.set(connection.id, entry)
  entry.result.catch(() => {
    if (byConnection.get(connection.id) === entry) byConnection.delete(connection.id)
  })
  return entry.result
}
