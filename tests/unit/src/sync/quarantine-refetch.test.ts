import { describe, expect, it } from 'vitest'
import type { ListPageArgs, ListPageResult, QuarantinedItem } from '../../../../electron/shared/contract/api'
import { quarantineRecordOf } from '../../../../src/db/quarantine-repository'
import { CacheSyncStore } from '../../../../src/sync/cache-sync-store'
import { fetchQuarantinedAgain, refetchQuery, sourceQuery } from '../../../../src/sync/quarantine-refetch'
import { chargeItem, historyItem, openDb, STORE_1, T0, uuid } from '../db/fixtures'
import { allHistory, countHistory } from '../../../../src/db/history-part-reads'

/** A connection id as main issues them (a UUID): the request read back is checked like any other. */
const CONN = '0f0e0d0c-0b0a-4908-8706-050403020100'

const REQUEST = `GET /v1/stores/${STORE_1}/transaction_history?cursor=${uuid(7)}&cursor_direction=asc&from=2026-10-01T00%3A00%3A00.000Z&limit=100&to=2026-10-31T23%3A59%3A59.999999Z`

function bad(over: Partial<QuarantinedItem> = {}): QuarantinedItem {
  return {
    resource: 'transaction_history',
    itemId: uuid(1),
    itemType: 'charge',
    storeId: STORE_1,
    createdOn: null,
    kind: 'invalid',
    reason: 'amount: expected number, received string',
    issues: [{ path: 'amount', message: 'expected number, received string' }],
    request: REQUEST,
    requestedFrom: '2026-10-01T00:00:00.000Z',
    requestedTo: '2026-10-31T23:59:59.999Z',
    raw: { amount: 'x' },
    ...over,
  }
}

function api(answer: Omit<ListPageResult, 'fetchedAt'>) {
  const calls: ListPageArgs[] = []
  return {
    calls,
    listPage: (args: ListPageArgs) => {
      calls.push(args)
      return Promise.resolve({ ...answer, fetchedAt: new Date(T0).toISOString() } as ListPageResult)
    },
  }
}

async function setup(item: QuarantinedItem) {
  const db = openDb()
  const store = new CacheSyncStore(db)
  await store.quarantine.putMany(CONN, [item], T0)
  const row = (await store.quarantine.list(CONN))[0]
  if (!row) throw new Error('not filed')
  return { db, store, row }
}

describe('fetch again', () => {
  it('asks for one item: history by a search for its id, charges by the second it was created in', () => {
    const history = quarantineRecordOf(CONN, bad(), T0)
    expect(refetchQuery(history)).toEqual({
      resource: 'transaction_history',
      priority: 'interactive',
      storeId: STORE_1,
      filters: { search: uuid(1) },
      paging: { limit: 100 },
    })
    const charge = quarantineRecordOf(
      CONN,
      bad({ resource: 'charges', itemType: null, createdOn: '2026-10-15T03:04:05.678901Z' }),
      T0,
    )
    expect(refetchQuery(charge)).toMatchObject({
      resource: 'charges',
      filters: { from: '2026-10-15T03:04:05.000Z', to: '2026-10-15T03:04:06.000Z' },
    })
    // No id: the request it came from, read back (no host, no credentials were ever in it).
    const noId = quarantineRecordOf(CONN, bad({ itemId: null }), T0)
    expect(refetchQuery(noId)).toBeNull()
    expect(sourceQuery(noId)).toEqual({
      connectionId: CONN,
      resource: 'transaction_history',
      priority: 'interactive',
      storeId: STORE_1,
      filters: { from: '2026-10-01T00:00:00.000Z', to: '2026-10-31T23:59:59.999999Z' },
      paging: { limit: 100, cursor: uuid(7), cursor_direction: 'asc' },
    })
  })

  it('stores the item and releases it when it now validates, flagging nothing else', async () => {
    const { db, store, row } = await setup(bad())
    const server = api({
      resource: 'transaction_history',
      items: [historyItem(1), historyItem(2)],
      hasMore: false,
    })
    expect(await fetchQuarantinedAgain(server, store, row)).toEqual({ outcome: 'released' })
    expect(server.calls).toHaveLength(1)
    // Only the item asked for is stored; the search may return its refunds too, which sync brings.
    expect((await allHistory(db)).map((r) => r.resourceId)).toEqual([uuid(1)])
    expect(await store.quarantine.count(CONN)).toBe(0)
    expect(await db.checkpoints.count()).toBe(0)
    db.close()
  })

  it('keeps the item with its new reason while it is still bad, and says when it is gone', async () => {
    const { db, store, row } = await setup(bad())
    const still = api({
      resource: 'transaction_history',
      items: [],
      hasMore: false,
      quarantined: [bad({ reason: 'currency: expected a 3-letter currency code' })],
    })
    expect(await fetchQuarantinedAgain(still, store, row)).toEqual({
      outcome: 'still_quarantined',
      reason: 'currency: expected a 3-letter currency code',
    })
    expect((await store.quarantine.list(CONN))[0]?.reason).toBe('currency: expected a 3-letter currency code')
    const gone = api({ resource: 'transaction_history', items: [historyItem(2)], hasMore: false })
    expect(await fetchQuarantinedAgain(gone, store, row)).toEqual({ outcome: 'not_found' })
    expect(await store.quarantine.count(CONN)).toBe(1)
    db.close()
  })

  it('an item without an id is released when its page comes back whole', async () => {
    const { db, store, row } = await setup(bad({ itemId: null, raw: { broken: true } }))
    const server = api({
      resource: 'transaction_history',
      items: [historyItem(1), historyItem(2)],
      hasMore: false,
    })
    expect(await fetchQuarantinedAgain(server, store, row)).toEqual({ outcome: 'released' })
    expect(server.calls[0]?.paging?.cursor).toBe(uuid(7))
    expect(await countHistory(db)).toBe(2)
    expect(await store.quarantine.count(CONN)).toBe(0)
    db.close()
  })

  it('a charge is found in its creation second and stored', async () => {
    const { db, store, row } = await setup(
      bad({ resource: 'charges', itemType: null, createdOn: '2026-10-15T03:04:05.678901Z' }),
    )
    const server = api({ resource: 'charges', items: [chargeItem(1)], hasMore: false })
    expect(await fetchQuarantinedAgain(server, store, row)).toEqual({ outcome: 'released' })
    expect(await store.charges.inRange(row.connectionId, -Infinity, Infinity)).toHaveLength(1)
    db.close()
  })
})
