import { createPinia, setActivePinia } from 'pinia'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Cache } from '../../../../../src/db/cache'
import type { ClosebookDb } from '../../../../../src/db/database'
import { useLedgerStore } from '../../../../../src/stores/ledger-store'
import { CONN, T0, storedMarks } from '../../db/fixtures'
import { closeLedgerCache, openLedgerCache } from '../ledger-cache'

const N = 3000

let db: ClosebookDb
let cache: Cache

async function reconciledCount(): Promise<number> {
  return (await cache.marks.all(CONN)).filter((m) => m.state === 'reconciled').length
}

beforeEach(async () => {
  ;({ db, cache } = await openLedgerCache(N))
  setActivePinia(createPinia())
})
afterEach(() => {
  closeLedgerCache(db)
})

/** The ledger store on the fixtures' month, its rows loaded. */
async function ledgerOnOctober(): Promise<ReturnType<typeof useLedgerStore>> {
  const ledger = useLedgerStore()
  await ledger.init()
  ledger.filters.period = '2026-10'
  await ledger.refresh()
  return ledger
}

describe('ledger store: bulk marking', () => {
  it('marks every matching record in one batch, audits each, updates the marks once, and undoes it all', async () => {
    const ledger = await ledgerOnOctober()
    await ledger.applyMarks('mark', 'matching', 'month-end')

    expect(ledger.notice).toEqual({ kind: 'marked', action: 'mark', changed: N, refused: 0 })
    expect(ledger.marking).toBeNull()
    expect(await reconciledCount()).toBe(N)
    // Stored by the records' UTC days (N minutes from T0 span three) and one audit row for the action.
    expect((await db.markDays.toArray()).map((r) => [r.day, r.marks.length])).toEqual([
      [T0 / 86_400_000, 1440],
      [T0 / 86_400_000 + 1, 1440],
      [T0 / 86_400_000 + 2, N - 2880],
    ])
    expect(await cache.audit.count(CONN)).toBe(N)
    expect(await db.audit.count()).toBe(1)
    expect(ledger.lastBatch).toHaveLength(N)
    expect([...ledger.marks.values()].filter((m) => m.state === 'reconciled')).toHaveLength(N)

    await ledger.undo()
    expect(ledger.notice).toEqual({ kind: 'undone', changed: N, refused: 0 })
    expect(await reconciledCount()).toBe(0)
    expect(await storedMarks(db)).toEqual([])
    expect(ledger.marks.size).toBe(0)
    expect(await cache.audit.count(CONN)).toBe(2 * N)
    expect(await db.audit.count()).toBe(2)
  })

  it('Ctrl+Z pressed while a mark is being written undoes that mark, not the batch before it', async () => {
    const ledger = await ledgerOnOctober()
    await ledger.applyMarks('note', 'matching', 'first')
    expect(ledger.notice).toEqual({ kind: 'marked', action: 'note', changed: N, refused: 0 })
    // The keys "m" then Ctrl+Z, the second before the first's transaction is done.
    const marked = ledger.applyMarks('mark', 'matching')
    const undone = ledger.undo()
    await Promise.all([marked, undone])
    expect(ledger.notice).toEqual({ kind: 'undone', changed: N, refused: 0 })
    expect(await reconciledCount()).toBe(0)
    // The note batch stays: only the mark was undone.
    expect((await cache.marks.all(CONN)).filter((m) => m.note === 'first')).toHaveLength(N)
  })

  it('refuses records of a month closed elsewhere, though the store had not seen the lock', async () => {
    const ledger = useLedgerStore()
    await ledger.init()
    // Closed after the store loaded its locks (another window): the transaction still sees it.
    await db.locks.put({ connectionId: CONN, period: '2026-10', lockedAt: T0, lockedBy: 'bob' })
    await ledger.applyMarks('mark', 'matching')
    expect(ledger.notice).toEqual({ kind: 'locked', period: '2026-10' })
    expect(await storedMarks(db)).toEqual([])
    expect(await cache.audit.count(CONN)).toBe(0)
  })

  it('cancelled, writes no mark and no audit row', async () => {
    const ledger = useLedgerStore()
    await ledger.init()
    const running = ledger.applyMarks('mark', 'matching')
    expect(ledger.marking).not.toBeNull()
    ledger.cancelMarking()
    await running
    expect(ledger.marking).toBeNull()
    expect(ledger.notice).toEqual({ kind: 'cancelled' })
    expect(await storedMarks(db)).toEqual([])
    expect(await cache.audit.count(CONN)).toBe(0)
    expect(ledger.lastBatch).toBeNull()
  })
})
