/**
 * An order file's refunds are read as far as the cache holds them: a refund made weeks after the file's
 * last order is found (the order names it), not reported missing.
 */
import { createPinia, setActivePinia } from 'pinia'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Cache } from '../../../../src/db/cache'
import type { ClosebookDb } from '../../../../src/db/database'
import { historyRecordOf } from '../../../../src/db/history-record'
import { ImportsRepository } from '../../../../src/db/imports-repository'
import type { HistoryRecord } from '../../../../src/domain/records'
import { useMatchStore } from '../../../../src/stores/match-store'
import { CONN, T0, checkpoint, historyItem, uuid } from '../db/fixtures'
import { closeLedgerCache, openLedgerCache } from './ledger-cache'

const DAY = 86_400_000
let db: ClosebookDb
let cache: Cache
let charge: HistoryRecord

beforeEach(async () => {
  ;({ db, cache } = await openLedgerCache(1))
  charge = (await cache.history.inRange(CONN, T0, T0 + DAY))[0] as HistoryRecord
  setActivePinia(createPinia())
})
afterEach(() => closeLedgerCache(db))

async function refundAfter(days: number, amount: number): Promise<HistoryRecord> {
  const refund = historyRecordOf(
    CONN,
    historyItem(50, {
      type: 'refund',
      charge_id: uuid(0),
      amount,
      amount_formatted: amount,
      created_on: new Date(T0 + days * DAY).toISOString(),
    }),
    0,
  )
  await cache.history.putPage(CONN, [refund], checkpoint())
  return refund
}

async function importOrder(refunded: number): Promise<void> {
  await new ImportsRepository(db).add(
    {
      connectionId: CONN,
      id: 'orders-1',
      source: 'orders',
      fileName: 'orders.csv',
      hash: '0'.repeat(64),
      importedAt: T0,
      rowCount: 1,
      profileName: 'test',
      encoding: 'utf-8',
    },
    [
      {
        connectionId: CONN,
        importId: 'orders-1',
        line: 2,
        source: 'orders',
        orderNumber: charge.orderRef,
        at: charge.createdAt,
        day: '2026-10-01',
        amount: charge.amount,
        currency: 'JPY',
        customer: null,
        description: null,
        matchedKeys: [],
        refunded,
      },
    ],
  )
}

describe('refunds after the file’s last order', () => {
  it('are found however late they came, as far as the cache holds', async () => {
    const refund = await refundAfter(40, 300)
    await importOrder(300)
    const store = useMatchStore()
    await store.init()
    store.importId = 'orders-1'
    await store.match()
    expect(store.proposals.map((p) => [p.rowLine, p.explanation.code, p.keys])).toEqual([
      [2, 'reference_refunds', [charge.key, refund.key]],
    ])
  })
})
