/**
 * The Month-end payout load (src/stores/month-payouts.ts) on a cache in fake-indexeddb in Node: October
 * with `--per-month` ledgers (default 34,000) after `--months` earlier months of as many, each month paid
 * out in one transfer on the 10th of the next. September is closed, so the bounded read skips the ledgers
 * of the transfers that close saw paid; the full read takes every ledger before October's end. Prints wall
 * and CPU time of each (best of 2) and the ledgers each read. Runs alone only:
 * `npx tsx tests/bench/payouts-load-bench.ts [--per-month N] [--months M]`.
 */
import { parseArgs } from 'node:util'
import * as fakeIndexedDb from 'fake-indexeddb'
import { createCache, setAppCacheForTests } from '../../src/db/cache'
import { ClosebookDb, type IndexedDbDeps } from '../../src/db/database'
import type { LedgerRow, TransferRow } from '../../src/db/payout-rows'
import type { TransferStatusChange } from '../../src/domain/payouts'
import { loadMonthPayouts } from '../../src/stores/month-payouts'
import { newConnectionRow } from '../support/cache'

const idb = fakeIndexedDb as unknown as IndexedDbDeps
const CONN = 'bench'
const DAY = 86_400_000

function monthStart(index: number): number {
  return Date.UTC(2026, 9 - index, 1)
}

async function fill(db: ClosebookDb, perMonth: number, months: number): Promise<void> {
  await db.payoutSync.put({
    connectionId: CONN,
    access: { code: 'ok' },
    lastRunAt: 0,
    complete: true,
    details: null,
  })
  for (let m = months; m >= 0; m--) {
    const from = monthStart(m)
    const to = monthStart(m - 1)
    const id = `t-${m}`
    const created = to + 12 * 3_600_000
    const paid = m > 0
    const transfer: TransferRow = {
      connectionId: CONN,
      id,
      merchantId: null,
      bankAccountId: null,
      amount: 0,
      currency: 'JPY',
      status: paid ? 'paid' : 'created',
      errorCode: null,
      errorText: null,
      note: null,
      startedBy: null,
      periodFrom: null,
      periodTo: null,
      createdAt: created,
      raw: {},
      syncedAt: 0,
      detailsReadAt: paid ? 'paid' : 'created',
      ledgerCount: perMonth,
    }
    const rows: LedgerRow[] = []
    for (let i = 0; i < perMonth; i++) {
      const amount = 1_000 + (i % 97) * 10
      transfer.amount += amount
      rows.push({
        connectionId: CONN,
        id: `l-${m}-${i}`,
        storeId: null,
        transferId: id,
        transferKey: id,
        amount,
        currency: 'JPY',
        percentFee: null,
        flatFee: null,
        flatFeeCurrency: null,
        exchangeRate: null,
        origin: 'manual',
        note: null,
        createdAt: from + Math.floor((i / perMonth) * (to - from)),
        raw: {},
        syncedAt: 0,
      })
    }
    for (let i = 0; i < rows.length; i += 5_000) await db.payoutLedgers.bulkPut(rows.slice(i, i + 5_000))
    await db.payoutTransfers.put(transfer)
    const changes: TransferStatusChange[] = [
      {
        connectionId: CONN,
        id: `${id}-c`,
        transferId: id,
        oldStatus: null,
        newStatus: 'created',
        reason: null,
        createdAt: created,
      },
    ]
    if (paid)
      changes.push({
        connectionId: CONN,
        id: `${id}-p`,
        transferId: id,
        oldStatus: 'created',
        newStatus: 'paid',
        reason: null,
        createdAt: created + 9 * DAY,
      })
    await db.payoutStatusChanges.bulkPut(changes)
  }
}

async function timed<T>(run: () => Promise<T>): Promise<{ wall: number; cpu: number; result: T }> {
  const cpu0 = process.cpuUsage()
  const t0 = performance.now()
  const result = await run()
  const wall = performance.now() - t0
  const used = process.cpuUsage(cpu0)
  return { wall, cpu: (used.user + used.system) / 1000, result }
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { 'per-month': { type: 'string' }, months: { type: 'string' } } })
  const perMonth = Number(values['per-month'] ?? 34_000)
  const months = Number(values.months ?? 3)
  const db = new ClosebookDb(`payouts-load-${Date.now()}`, idb)
  setAppCacheForTests(createCache(db))
  const connection = {
    ...newConnectionRow(
      { id: CONN, label: 'Bench', baseUrl: 'http://127.0.0.1', timeZone: 'UTC', storeIds: [] },
      false,
    ),
  }
  await db.connections.put(connection)
  const filled = await timed(() => fill(db, perMonth, months))
  console.error(`filled in ${Math.round(filled.wall)} ms`)
  const september = await loadMonthPayouts(connection, '2026-09', { bounded: false })
  if (!september?.available) throw new Error('no payouts')
  await db.locks.put({
    connectionId: CONN,
    period: '2026-09',
    lockedAt: 0,
    lockedBy: 'bench',
    payoutClose: september.value.close,
  })
  const report: Record<string, string> = {}
  for (const bounded of [false, true]) {
    let best: Awaited<ReturnType<typeof timed>> | null = null
    let read = 0
    let ties = false
    for (let run = 0; run < 2; run++) {
      const t = await timed(() => loadMonthPayouts(connection, '2026-10', { bounded }))
      const v = t.result?.available ? t.result.value : null
      read = v?.ledgersRead ?? 0
      ties = v?.rollForward.ties ?? false
      if (!best || t.cpu < best.cpu) best = t
    }
    console.error(`${bounded ? 'bounded' : 'full'} read done`)
    report[bounded ? 'bounded' : 'full'] =
      `wall ${Math.round(best?.wall ?? 0)} ms, CPU ${Math.round(best?.cpu ?? 0)} ms, ${read} ledgers read, ties: ${ties}`
  }
  console.log(
    JSON.stringify(
      { perMonth, earlierMonths: months, fill: `${Math.round(filled.wall)} ms`, ...report },
      null,
      2,
    ),
  )
  db.close()
}

void main()
