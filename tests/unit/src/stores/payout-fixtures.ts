/** Cached payouts for the store tests: one UTC connection (CONN), JPY transfers, manual ledgers. */
import type { ClosebookDb } from '../../../../src/db/database'
import type { LedgerRow, TransferRow } from '../../../../src/db/payout-rows'
import type { TransferStatusChange } from '../../../../src/domain/payouts'
import { CONN } from '../db/fixtures'

export const at = (iso: string) => Date.parse(iso)

export function transfer(id: string, amount: number, status: string, createdOn: string): TransferRow {
  return {
    connectionId: CONN,
    id,
    merchantId: null,
    bankAccountId: null,
    amount,
    currency: 'JPY',
    status,
    errorCode: null,
    errorText: null,
    note: null,
    startedBy: null,
    periodFrom: null,
    periodTo: null,
    createdAt: at(createdOn),
    raw: {},
    syncedAt: 0,
    detailsReadAt: status,
    ledgerCount: 1,
  }
}

export function ledger(id: string, transferId: string | null, amount: number, createdOn: string): LedgerRow {
  return {
    connectionId: CONN,
    id,
    storeId: null,
    transferId,
    transferKey: transferId ?? '',
    amount,
    currency: 'JPY',
    percentFee: null,
    flatFee: null,
    flatFeeCurrency: null,
    exchangeRate: null,
    origin: 'manual',
    note: null,
    createdAt: at(createdOn),
    raw: {},
    syncedAt: 0,
  }
}

export function change(
  id: string,
  transferId: string,
  newStatus: string,
  createdOn: string,
): TransferStatusChange {
  return {
    connectionId: CONN,
    id,
    transferId,
    oldStatus: null,
    newStatus,
    reason: null,
    createdAt: at(createdOn),
  }
}

/**
 * September's sales (10,000) paid out on 10 October as `t-sep` for `paidAmount`, October's (7,000) waiting
 * in a transfer created on 31 October, November's (3,000) in none yet.
 */
export async function seedPayouts(db: ClosebookDb, paidAmount: number): Promise<void> {
  await db.payoutSync.put({
    connectionId: CONN,
    access: { code: 'ok' },
    lastRunAt: 0,
    complete: true,
    details: null,
  })
  await db.payoutTransfers.bulkPut([
    transfer('t-sep', paidAmount, 'paid', '2026-10-01T00:00:00Z'),
    transfer('t-oct', 7_000, 'created', '2026-10-31T12:00:00Z'),
  ])
  await db.payoutLedgers.bulkPut([
    ledger('l-sep', 't-sep', 10_000, '2026-09-15T00:00:00Z'),
    ledger('l-oct', 't-oct', 7_000, '2026-10-15T00:00:00Z'),
    ledger('l-nov', null, 3_000, '2026-11-05T00:00:00Z'),
  ])
  await db.payoutStatusChanges.bulkPut([
    change('c1', 't-sep', 'created', '2026-10-01T00:00:00Z'),
    change('c2', 't-sep', 'paid', '2026-10-10T00:00:00Z'),
    change('c3', 't-oct', 'created', '2026-10-31T12:00:00Z'),
  ])
}
