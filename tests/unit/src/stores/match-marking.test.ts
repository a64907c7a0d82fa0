/**
 * Every mark write goes through the marking service, which plans inside the transaction that
 * writes. Matching's accept and import removal read the marks and locks there, so a change made between a
 * proposal and its acceptance is kept and audited as the true `before`, and a closed period is refused on
 * every path (ledger mark, undo, accept, removal) with nothing written.
 */
import { createPinia, setActivePinia } from 'pinia'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { Cache } from '../../../../src/db/cache'
import type { ClosebookDb } from '../../../../src/db/database'
import { ImportsRepository } from '../../../../src/db/imports-repository'
import type {
  HistoryRecord,
  ImportedRowRecord,
  ImportRecord,
  ImportSource,
} from '../../../../src/domain/records'
import { IMPORT_REMOVED } from '../../../../src/reconcile/marking'
import { useLedgerStore } from '../../../../src/stores/ledger-store'
import { useMatchStore } from '../../../../src/stores/match-store'
import { CONN, T0, storedAudit, storedMarks } from '../db/fixtures'
import { closeLedgerCache, openLedgerCache } from './ledger-cache'

let db: ClosebookDb
let cache: Cache
let records: HistoryRecord[]

beforeEach(async () => {
  ;({ db, cache } = await openLedgerCache(3))
  records = (await cache.history.inRange(CONN, T0, T0 + 86_400_000)).sort((a, b) => a.createdAt - b.createdAt)
  setActivePinia(createPinia())
})
afterEach(() => {
  vi.restoreAllMocks()
  closeLedgerCache(db)
})

async function addImport(id: string, source: ImportSource, lines: number[]): Promise<void> {
  const file: ImportRecord = {
    connectionId: CONN,
    id,
    source,
    fileName: `${id}.csv`,
    hash: id.padEnd(64, '0'),
    importedAt: T0,
    rowCount: lines.length,
    profileName: 'test',
    encoding: 'utf-8',
  }
  const rows: ImportedRowRecord[] = lines.map((line) => ({
    connectionId: CONN,
    importId: id,
    line,
    source,
    orderNumber: source === 'orders' ? `ORD-${line}` : null,
    at: T0,
    day: '2026-10-01',
    amount: 1000,
    currency: 'JPY',
    customer: null,
    description: null,
    matchedKeys: [],
  }))
  await new ImportsRepository(db).add(file, rows)
}

async function matchStoreOn(importId: string): Promise<ReturnType<typeof useMatchStore>> {
  const store = useMatchStore()
  await store.init()
  store.importId = importId
  return store
}

/** A note on `record` written through the ledger, as another window would. */
async function ledgerNote(record: HistoryRecord, note: string): Promise<void> {
  const ledger = useLedgerStore()
  await ledger.init()
  ledger.filters.period = '2026-10'
  await ledger.refresh()
  const index = [...ledger.rows].find(([, r]) => r.key === record.key)?.[0]
  if (index === undefined) throw new Error('record not in the ledger')
  ledger.select(index, 'only')
  await ledger.applyMarks('note', 'selection', note)
  expect(ledger.notice).toMatchObject({ kind: 'marked', changed: 1 })
}

async function lock(period = '2026-10'): Promise<void> {
  await db.locks.put({ connectionId: CONN, period, lockedAt: T0, lockedBy: 'closer' })
}

/** Runs `meanwhile` when the accept (or removal) asks who is acting: after its proposal, before its write. */
function interleave(meanwhile: () => Promise<void>): void {
  const getRaw = cache.settings.getRaw.bind(cache.settings)
  let done = false
  vi.spyOn(cache.settings, 'getRaw').mockImplementation(async (key: string) => {
    if (key === 'actorName' && !done) {
      done = true
      await meanwhile()
    }
    return getRaw(key)
  })
}

describe('accepting a match: planned inside the writing transaction', () => {
  it('a note written between the proposal and the acceptance is kept and audited as the before value', async () => {
    await addImport('orders-1', 'orders', [2])
    const store = await matchStoreOn('orders-1')
    const [rec] = records as [HistoryRecord]
    interleave(() => ledgerNote(rec, 'customer called'))

    await store.accept([{ rowLine: 2, keys: [rec.key], rule: 'reference' }])

    expect(store.error).toBeNull()
    expect(store.notice).toEqual({ kind: 'accepted', count: 1 })
    const [mark] = await storedMarks(db)
    expect(mark).toMatchObject({
      state: 'reconciled',
      note: 'customer called',
      matchRef: 'orders:orders-1:2',
    })
    const audit = (await storedAudit(db)).filter((e) => e.key === rec.key)
    expect(audit.map((e) => e.action)).toEqual(['note', 'mark'])
    expect(audit[1]?.before).toMatchObject({ state: 'unreconciled', note: 'customer called' })
    expect((await new ImportsRepository(db).rows(CONN, 'orders-1'))[0]?.matchedKeys).toEqual([rec.key])
  })

  it('a slower match asked for before an acceptance never overwrites the result read after it', async () => {
    await addImport('orders-1', 'orders', [2, 3])
    const store = await matchStoreOn('orders-1')
    const [rec] = records as [HistoryRecord]
    // The first match's history read ends last, as on a loaded machine; its rows were read before the accept.
    const inRange = cache.history.inRange.bind(cache.history)
    let delayed = false
    vi.spyOn(cache.history, 'inRange').mockImplementation(async (...args) => {
      const read = await inRange(...args)
      if (!delayed) {
        delayed = true
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
      return read
    })
    const earlier = store.match()
    // While a match is in flight the view says so instead of counts that may be an earlier state's.
    expect(store.matching).toBe(true)
    await store.accept([{ rowLine: 2, keys: [rec.key], rule: 'reference' }])
    expect(store.matching).toBe(true)
    await earlier
    expect(store.matching).toBe(false)

    expect(store.rows.find((r) => r.line === 2)?.matchedKeys).toEqual([rec.key])
    expect(store.proposals.some((p) => p.rowLine === 2)).toBe(false)
  })

  it('an order link and a deposit link accepted one after the other coexist on the mark', async () => {
    const [rec] = records as [HistoryRecord]
    await addImport('orders-1', 'orders', [2])
    await addImport('bank-1', 'bank', [7])
    await (await matchStoreOn('orders-1')).accept([{ rowLine: 2, keys: [rec.key], rule: 'reference' }])
    setActivePinia(createPinia())
    await (await matchStoreOn('bank-1')).accept([{ rowLine: 7, keys: [rec.key], rule: 'payout' }])
    expect((await storedMarks(db))[0]?.matchRef).toBe('orders:orders-1:2 bank:bank-1:7')
    const audit = (await storedAudit(db)).filter((e) => e.key === rec.key)
    expect(audit[1]?.before).toMatchObject({ matchRef: 'orders:orders-1:2' })
  })

  it('a month closed between the proposal and the acceptance refuses it: nothing is written', async () => {
    await addImport('orders-1', 'orders', [2])
    const store = await matchStoreOn('orders-1')
    const [rec] = records as [HistoryRecord]
    interleave(() => lock())
    await store.accept([{ rowLine: 2, keys: [rec.key], rule: 'reference' }])
    expect(store.notice).toEqual({ kind: 'refusedLocked', count: 1 })
    expect(await storedMarks(db)).toEqual([])
    expect(await storedAudit(db)).toEqual([])
    expect((await new ImportsRepository(db).rows(CONN, 'orders-1'))[0]?.matchedKeys).toEqual([])
  })
})

describe('removing an import: one transaction through the marking service', () => {
  it('unmarks what only it reconciled, keeps the other side’s link, audits both and forgets the file', async () => {
    const [a, b] = records as [HistoryRecord, HistoryRecord]
    await addImport('orders-1', 'orders', [2, 3])
    await addImport('bank-1', 'bank', [7])
    await (
      await matchStoreOn('orders-1')
    ).accept([
      { rowLine: 2, keys: [a.key], rule: 'reference' },
      { rowLine: 3, keys: [b.key], rule: 'reference' },
    ])
    setActivePinia(createPinia())
    await (await matchStoreOn('bank-1')).accept([{ rowLine: 7, keys: [b.key], rule: 'payout' }])
    setActivePinia(createPinia())
    const store = await matchStoreOn('orders-1')
    // The ledger notes `a` while the removal is on its way: the note survives the unmark.
    interleave(() => ledgerNote(a, 'refund expected'))

    await store.removeImport('orders-1')

    expect(store.error).toBeNull()
    expect(store.notice).toEqual({ kind: 'removed', count: 2 })
    const marks = new Map((await storedMarks(db)).map((m) => [m.key, m]))
    expect(marks.get(a.key)).toMatchObject({ state: 'unreconciled', note: 'refund expected' })
    expect(marks.get(a.key)).not.toHaveProperty('matchRef')
    expect(marks.get(b.key)).toMatchObject({ state: 'reconciled', matchRef: 'bank:bank-1:7' })
    const removal = (await storedAudit(db)).filter((e) => e.reason === IMPORT_REMOVED)
    expect(removal.map((e) => [e.action, e.key])).toEqual([
      ['unmark', a.key],
      ['mark', b.key],
    ])
    expect(removal[0]?.before).toMatchObject({ note: 'refund expected', state: 'reconciled' })
    expect((await new ImportsRepository(db).list(CONN)).map((f) => f.id)).toEqual(['bank-1'])
    expect(await new ImportsRepository(db).rows(CONN, 'orders-1')).toEqual([])
  })

  it('a closed month refuses the whole removal: the file, its rows and the marks stay', async () => {
    const [a] = records as [HistoryRecord]
    await addImport('orders-1', 'orders', [2])
    await (await matchStoreOn('orders-1')).accept([{ rowLine: 2, keys: [a.key], rule: 'reference' }])
    const before = { marks: await storedMarks(db), audit: await storedAudit(db) }
    setActivePinia(createPinia())
    const store = await matchStoreOn('orders-1')
    interleave(() => lock())
    await store.removeImport('orders-1')
    expect(store.notice).toEqual({ kind: 'refusedLocked', count: 1 })
    expect(await storedMarks(db)).toEqual(before.marks)
    expect(await storedAudit(db)).toEqual(before.audit)
    expect((await new ImportsRepository(db).rows(CONN, 'orders-1'))[0]?.matchedKeys).toEqual([a.key])
  })
})

describe('the ledger: a closed month is refused by the same service', () => {
  it('refuses a mark and an undo in a closed month', async () => {
    const ledger = useLedgerStore()
    await ledger.init()
    ledger.filters.period = '2026-10'
    await ledger.refresh()
    await ledger.applyMarks('mark', 'matching')
    expect(ledger.notice).toMatchObject({ kind: 'marked', changed: 3 })
    const marked = await storedMarks(db)
    await lock()
    await ledger.undo()
    expect(ledger.notice).toEqual({ kind: 'undone', changed: 0, refused: 3 })
    await ledger.applyMarks('unmark', 'matching')
    expect(ledger.notice).toEqual({ kind: 'locked', period: '2026-10' })
    expect(await storedMarks(db)).toEqual(marked)
  })
})
