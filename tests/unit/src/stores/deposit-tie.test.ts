import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { Cache } from '../../../../src/db/cache'
import type { ClosebookDb } from '../../../../src/db/database'
import type { ImportedRowRecord } from '../../../../src/domain/records'
import { historyRecordOf } from '../../../../src/db/history-record'
import { ImportsRepository } from '../../../../src/db/imports-repository'
import { loadDepositTie, sharedDepositTie } from '../../../../src/stores/deposit-tie'
import { readSettlement } from '../../../../src/stores/record-details'
import { useLedgerSettlementStore } from '../../../../src/stores/ledger-settlement-store'
import { createPinia, setActivePinia } from 'pinia'
import { CONN, historyItem } from '../db/fixtures'
import { closeLedgerCache, openLedgerCache } from './ledger-cache'
import { at, change, ledger, seedPayouts, transfer } from './payout-fixtures'

let db: ClosebookDb
let cache: Cache

beforeEach(async () => {
  ;({ db, cache } = await openLedgerCache(0))
})
afterEach(() => {
  vi.restoreAllMocks()
  closeLedgerCache(db)
})

function bankRow(line: number, day: string, amount: number): ImportedRowRecord {
  return {
    connectionId: CONN,
    importId: 'bank-1',
    line,
    source: 'bank',
    orderNumber: null,
    at: at(`${day}T00:00:00Z`),
    day,
    amount,
    currency: 'JPY',
    customer: null,
    description: 'ﾌﾘｺﾐ ﾕﾆｳﾞｱﾍﾟｲ',
    matchedKeys: [],
  }
}

async function connection() {
  const c = await cache.connections.get(CONN)
  if (!c) throw new Error('no connection')
  return c
}

describe('deposit tie-out from the cache', () => {
  it('ties the deposit of the paid transfer and lists a deposit no transfer explains', async () => {
    await seedPayouts(db, 10_000)
    await db.importedRows.bulkPut([bankRow(1, '2026-10-12', 10_000), bankRow(2, '2026-10-20', 5_000)])
    const tied = await loadDepositTie(await connection())
    expect(tied?.tie.matches.map((m) => [m.transferId, m.line.line, m.amount])).toEqual([
      ['t-sep', 1, 10_000],
    ])
    expect(tied?.tie.exceptions).toHaveLength(1)
    expect(tied?.tie.exceptions[0]).toMatchObject({
      code: 'deposit_without_transfer',
      line: { line: 2, amount: 5_000 },
    })
    expect(tied?.bankLines).toBe(2)
  })

  it('lists a paid transfer whose deposit is not in the bank file', async () => {
    await seedPayouts(db, 10_000)
    await db.importedRows.bulkPut([bankRow(1, '2026-10-30', 2_000)])
    const tied = await loadDepositTie(await connection())
    expect(tied?.tie.matches).toEqual([])
    expect(tied?.tie.exceptions.map((e) => e.code).sort()).toEqual([
      'deposit_without_transfer',
      'transfer_without_deposit',
    ])
  })

  it('ties nothing for a connection whose payouts were never synced', async () => {
    await db.importedRows.bulkPut([bankRow(1, '2026-10-12', 10_000)])
    expect(await loadDepositTie(await connection())).toBeNull()
  })

  it('calls a record settled only when the deposit of its transfer is matched', async () => {
    await seedPayouts(db, 10_000)
    const sale = historyRecordOf(CONN, historyItem(0, { created_on: '2026-09-15T00:00:00Z' }), 0)
    await db.ledgerLinks.put({
      connectionId: CONN,
      ledgerId: 'l-sep',
      kind: 'charge',
      recordId: sale.chargeId,
      createdAt: sale.createdAt,
    })
    expect(await readSettlement(sale)).toEqual({ state: 'inTransfer', transferId: 't-sep' })
    await db.importedRows.bulkPut([bankRow(1, '2026-10-12', 10_000)])
    expect(await readSettlement(sale)).toEqual({
      state: 'settled',
      transferId: 't-sep',
      depositDay: '2026-10-12',
    })
  })

  it('calls a record of a failed transfer settled once the transfer that repaid it is matched to its deposit', async () => {
    await seedPayouts(db, 14_000)
    await db.payoutTransfers.bulkPut([
      {
        ...transfer('t-sep', 14_000, 'paid', '2026-10-01T00:00:00Z'),
        note: 'Includes the unpaid transfer t-aug',
      },
      transfer('t-aug', 4_000, 'failed', '2026-09-01T00:00:00Z'),
    ])
    await db.payoutLedgers.put(ledger('l-aug', 't-aug', 4_000, '2026-08-15T00:00:00Z'))
    await db.payoutStatusChanges.put(change('c0', 't-aug', 'failed', '2026-09-15T00:00:00Z'))
    const sale = historyRecordOf(CONN, historyItem(1, { created_on: '2026-08-15T00:00:00Z' }), 0)
    await db.ledgerLinks.put({
      connectionId: CONN,
      ledgerId: 'l-aug',
      kind: 'charge',
      recordId: sale.chargeId,
      createdAt: sale.createdAt,
    })
    expect(await readSettlement(sale)).toEqual({ state: 'inTransfer', transferId: 't-aug' })
    await db.importedRows.bulkPut([bankRow(1, '2026-10-12', 14_000)])
    expect(await readSettlement(sale)).toEqual({
      state: 'settled',
      transferId: 't-sep',
      depositDay: '2026-10-12',
    })
  })

  it('offers the demo a bank statement of its own payouts, and a real connection none', async () => {
    await seedPayouts(db, 10_000)
    expect((await loadDepositTie(await connection()))?.demoStatement).toBeNull()
    const demo = { ...(await connection()), isDemo: true }
    const statement = (await loadDepositTie(demo))?.demoStatement ?? ''
    expect(statement.split('\r\n')).toEqual([
      '年月日,お引出し,お預入れ,お取り扱い内容,残高',
      '2026/10/10,,10000,ﾌﾘｺﾐ ｸﾛｰｽﾞﾌﾞﾂｸ ﾃﾞﾓ,1010000',
      '',
    ])
  })

  it('shares one tie-out between the records opened, and reads it again once its inputs change', async () => {
    await seedPayouts(db, 10_000)
    await db.ledgerLinks.put({
      connectionId: CONN,
      ledgerId: 'l-sep',
      kind: 'charge',
      recordId: 'ch-sep',
      createdAt: at('2026-09-15T00:00:00Z'),
    })
    const sale = historyRecordOf(CONN, historyItem(0, { created_on: '2026-09-15T00:00:00Z' }), 0)
    const saleOfLedger = { ...sale, chargeId: 'ch-sep' }
    const reads = vi.spyOn(ImportsRepository.prototype, 'rows')
    expect(await readSettlement(saleOfLedger)).toEqual({ state: 'inTransfer', transferId: 't-sep' })
    expect(await readSettlement(saleOfLedger)).toEqual({ state: 'inTransfer', transferId: 't-sep' })
    const c = await connection()
    expect(await sharedDepositTie(c)).toBe(await sharedDepositTie(c))
    expect(reads).toHaveBeenCalledTimes(1)

    // A status change of the transfer is an input: the next reader gets a tie-out read again.
    await db.payoutStatusChanges.put({
      connectionId: CONN,
      id: 'c9',
      transferId: 't-sep',
      oldStatus: 'paid',
      newStatus: 'paid',
      reason: null,
      createdAt: at('2026-10-11T00:00:00Z'),
    })
    await readSettlement(saleOfLedger)
    expect(reads).toHaveBeenCalledTimes(2)
    // A write elsewhere (the sync's checkpoints) keeps the shared result.
    await db.checkpoints.clear()
    await readSettlement(saleOfLedger)
    expect(reads).toHaveBeenCalledTimes(2)
  })

  it('keeps the tie-out of each connection apart, and one per time zone', async () => {
    await seedPayouts(db, 10_000)
    const c = await connection()
    const utc = await sharedDepositTie(c)
    expect(await sharedDepositTie({ ...c, timeZone: 'Asia/Tokyo' })).not.toBe(utc)
    expect(await sharedDepositTie({ ...c, id: 'other' })).toBeNull()
  })

  it('fills the ledger’s Settled column for the rows asked, in one batch, and again after a bank file', async () => {
    setActivePinia(createPinia())
    await seedPayouts(db, 10_000)
    const sale = historyRecordOf(CONN, historyItem(0, { created_on: '2026-09-15T00:00:00Z' }), 0)
    const unlinked = historyRecordOf(CONN, historyItem(1, { created_on: '2026-09-16T00:00:00Z' }), 0)
    await db.ledgerLinks.put({
      connectionId: CONN,
      ledgerId: 'L-SEP',
      kind: 'charge',
      recordId: sale.chargeId,
      createdAt: sale.createdAt,
    })
    const settlements = useLedgerSettlementStore()
    // As the grid does on each render, the rows shown are asked for again until known: a write that
    // lands while a batch is read (the link put just above) makes that batch stale.
    const settle = async () => {
      await vi.waitFor(() => {
        expect(settlements.settlementOf(sale)).toBeDefined()
        expect(settlements.settlementOf(unlinked)).toBeDefined()
      })
    }
    await settle()
    expect(settlements.settlementOf(sale)).toEqual({ state: 'inTransfer', transferId: 't-sep' })
    expect(settlements.settlementOf(unlinked)).toBeNull()
    await db.importedRows.bulkPut([bankRow(1, '2026-10-12', 10_000)])
    expect(settlements.settlementOf(sale)).toBeUndefined()
    await settle()
    expect(settlements.settlementOf(sale)).toEqual({
      state: 'settled',
      transferId: 't-sep',
      depositDay: '2026-10-12',
    })
  })
})
