import { createPinia, setActivePinia } from 'pinia'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Cache } from '../../../../src/db/cache'
import type { ClosebookDb } from '../../../../src/db/database'
import { historyRecordOf } from '../../../../src/db/history-record'
import { UNAVAILABLE_CLOSE_FACTS, setCloseFactsProvider } from '../../../../src/reconcile/close-checklist'
import { planMarks } from '../../../../src/reconcile/marking'
import { useMonthEndStore } from '../../../../src/stores/month-end-store'
import { registerCloseFacts } from '../../../../src/stores/close-facts'
import { monthVerificationKey } from '../../../../src/db/recency'
import { QuarantineRepository } from '../../../../src/db/quarantine-repository'
import { CONN, T0, checkpoint, historyItem } from '../db/fixtures'
import { closeLedgerCache, openLedgerCache } from './ledger-cache'

const N = 20
const AFTER_OCTOBER = Date.parse('2026-11-02T00:00:00Z')

let db: ClosebookDb
let cache: Cache

beforeEach(async () => {
  ;({ db, cache } = await openLedgerCache(N))
  const conn = await cache.connections.get(CONN)
  if (!conn) throw new Error('no connection')
  await cache.connections.put({ ...conn, lastSyncedAt: AFTER_OCTOBER })
  await cache.checkpoints.put(checkpoint({ done: true }))
  setActivePinia(createPinia())
})
afterEach(() => {
  setCloseFactsProvider(UNAVAILABLE_CLOSE_FACTS)
  closeLedgerCache(db)
})

async function openOctober() {
  const store = useMonthEndStore()
  store.choosePeriod('2026-10')
  await store.init()
  if (!store.data) throw new Error('no month')
  return store
}

describe('month-end store: close and reopen', () => {
  it('closes only with a name, an acknowledged checklist and a note; reopening lists what changed', async () => {
    const store = await openOctober()
    expect(store.data?.checklist.items.find((i) => i.id === 'unreconciled')?.state).toBe('blocked')
    expect(store.data?.checklist.items.find((i) => i.id === 'synced')?.state).toBe('ok')

    expect(await store.closeMonth('', false)).toBe(false)
    expect(store.closeRefusal).toBe('needsName')
    await cache.settings.set('actorName', 'Hanako Sato')
    expect(await store.closeMonth('', false)).toBe(false)
    expect(store.closeRefusal).toBe('needsAcknowledge')
    expect(await store.closeMonth('  ', true)).toBe(false)
    expect(store.closeRefusal).toBe('needsNote')
    expect(await cache.locks.isLocked(CONN, '2026-10')).toBe(false)

    expect(await store.closeMonth('Deposits arrive in November', true)).toBe(true)
    expect(store.data?.locked).toBe(true)
    const lock = await cache.locks.get(CONN, '2026-10')
    expect(lock).toMatchObject({ lockedBy: 'Hanako Sato', note: 'Deposits arrive in November' })
    expect(Object.keys(lock?.snapshot ?? {})).toHaveLength(N)
    const closed = (await cache.audit.listByPeriod(CONN, '2026-10')).find((e) => e.action === 'close-period')
    expect(closed?.after).toMatchObject({ lockedBy: 'Hanako Sato', records: N })
    expect(closed?.after).not.toHaveProperty('snapshot')
    expect(store.data?.changes).toEqual({ added: [], changed: [], removed: [] })

    // A later sync: record 0 failed after all, and a late record of October arrives.
    const changed = historyRecordOf(
      CONN,
      historyItem(0, { created_on: new Date(T0).toISOString(), status: 'failed' }),
      0,
    )
    const added = historyRecordOf(
      CONN,
      historyItem(N, { created_on: new Date(T0 + 3_600_000).toISOString() }),
      0,
    )
    await cache.history.putPage(CONN, [changed, added], checkpoint({ done: true }))
    await store.load()
    expect(store.data?.changes).toEqual({ added: [added.key], changed: [changed.key], removed: [] })

    expect(await store.reopenMonth('  ')).toBe(false)
    expect(store.closeRefusal).toBe('needsReason')
    expect(await store.reopenMonth('Record 0 failed after the close')).toBe(true)
    expect(store.data?.locked).toBe(false)
    const reopened = (await cache.audit.listByPeriod(CONN, '2026-10')).find(
      (e) => e.action === 'reopen-period',
    )
    expect(reopened).toMatchObject({ actor: 'Hanako Sato', reason: 'Record 0 failed after the close' })
  })

  it('closes plainly once nothing blocks, and uses the registered facts for verify and quarantine', async () => {
    await cache.settings.set('actorName', 'Hanako Sato')
    setCloseFactsProvider({
      lastVerified: () => Promise.resolve({ available: true, value: AFTER_OCTOBER }),
      quarantined: () => Promise.resolve({ available: true, value: [] }),
    })
    const store = await openOctober()
    expect(store.data?.checklist.items.find((i) => i.id === 'verified')?.state).toBe('ok')
    expect(store.data?.checklist.items.find((i) => i.id === 'quarantine')?.state).toBe('ok')
    // Every record left open with a note saying why: excepted, so nothing blocks.
    const records = (await store.data?.history()) ?? []
    await cache.marking.planAndApply(CONN, records, (current) =>
      planMarks({
        action: 'note',
        records,
        marks: current.marks,
        locks: current.locks,
        note: 'Settles with the November deposit',
        actor: 'Hanako Sato',
        now: AFTER_OCTOBER,
        timeZone: 'UTC',
      }),
    )
    await store.load()
    expect(store.data?.checklist.blocking).toBe(0)
    expect(await store.closeMonth('', false)).toBe(true)
    expect(await cache.locks.get(CONN, '2026-10')).not.toHaveProperty('note')
  })

  it("the app's own facts: Verify month and the quarantine table decide those two items", async () => {
    registerCloseFacts()
    const items = async () => {
      const store = await openOctober()
      const find = (id: string) => store.data?.checklist.items.find((i) => i.id === id)?.state
      return { verified: find('verified'), quarantine: find('quarantine') }
    }
    // Never verified, nothing quarantined.
    expect(await items()).toEqual({ verified: 'blocked', quarantine: 'ok' })
    await cache.settings.set(monthVerificationKey(CONN, '2026-10'), {
      at: AFTER_OCTOBER,
      changedKeys: [],
      changedCount: 0,
      digest: '0:0',
    })
    await new QuarantineRepository(db).putMany(
      CONN,
      [
        {
          resource: 'transaction_history',
          itemId: 'bad-1',
          itemType: 'charge',
          storeId: null,
          createdOn: '2026-10-15T00:00:00Z',
          kind: 'invalid',
          reason: 'amount: expected number, received string',
          issues: [{ path: 'amount', message: 'expected number, received string' }],
          request: 'GET /transaction_history?from=2026-10-01',
          requestedFrom: null,
          requestedTo: null,
          raw: { amount: '1000' },
        },
      ],
      AFTER_OCTOBER,
    )
    expect(await items()).toEqual({ verified: 'ok', quarantine: 'blocked' })
  })
})
