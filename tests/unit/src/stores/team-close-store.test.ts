import { createPinia, setActivePinia } from 'pinia'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { DesktopApi, TeamMonthState } from '../../../../electron/shared/contract'
import { createCache, setAppCacheForTests } from '../../../../src/db/cache'
import type { ClosebookDb } from '../../../../src/db/database'
import { setDesktopApiForTests } from '../../../../src/platform'
import { useTeamCloseStore } from '../../../../src/stores/team-close-store'
import { historyRecordOf } from '../../../../src/db/history-record'
import { historyItem } from '../../../support/api-items'
import { openDb } from '../db/fixtures'

const CONN = 'c0c0c0c0-0000-4000-8000-000000000000'
const config = { host: '127.0.0.1', port: 5432, database: 'closebook', user: 'rei' }
const submitted: TeamMonthState = {
  month: '2026-10',
  state: 'submitted',
  version: 2,
  submittedBy: 'ana',
  submittedAt: '2026-11-01T09:00:00.000000Z',
  signedOffBy: null,
  signedOffAt: null,
  note: '',
}

function fakeApi(calls: unknown[], configured = true): DesktopApi {
  const team: Partial<DesktopApi['team']> = {
    get: () =>
      Promise.resolve({ configured, config: configured ? config : null, hasPassword: true, plain: true }),
    pullAudit: () => Promise.resolve({ rows: [], wakeCount: 0 }),
    months: () => Promise.resolve([submitted]),
    grants: () =>
      Promise.resolve([
        { merchantId: 'mer_live', mode: 'live', name: 'Live shop', role: 'reviewer', stores: [] },
        { merchantId: 'mer_demo', mode: 'test', name: 'Demo shop', role: 'reviewer', stores: [] },
      ]),
    changeMonth: (args) => {
      calls.push(args)
      return Promise.resolve({
        key: args.key,
        replayed: false,
        auditHead: 3,
        status: 'refused',
        reason: 'same_person',
        month: submitted,
      })
    },
  }
  return { team } as unknown as DesktopApi
}

describe('team close store', () => {
  let db: ClosebookDb
  beforeEach(() => {
    setActivePinia(createPinia())
    db = openDb()
    setAppCacheForTests(createCache(db))
  })
  afterEach(() => {
    setDesktopApiForTests(undefined)
    setAppCacheForTests(undefined)
    db.close()
  })

  it('does nothing without a workspace', async () => {
    const calls: unknown[] = []
    setDesktopApiForTests(fakeApi(calls, false))
    const store = useTeamCloseStore()
    await store.load(CONN, '2026-10')
    expect(store.merchant).toBeNull()
    expect(store.month).toBeNull()
  })

  it("offers the login's grants, those in the connection's mode first; with no merchant id known it suggests none", async () => {
    setDesktopApiForTests(fakeApi([]))
    await db.history.put(historyRecordOf(CONN, historyItem(1, { mode: 'test' }), 0))
    const store = useTeamCloseStore()
    await store.load(CONN, '2026-10')
    expect(store.grants?.map((g) => [g.grant.merchantId, g.fit])).toEqual([
      ['mer_demo', 'mode'],
      ['mer_live', 'other'],
    ])
    expect(store.suggested).toBeNull()
    expect(store.error).toBeNull()
  })

  it('remembers the merchant per connection, shows the month and sends sign-off with the version seen', async () => {
    const calls: unknown[] = []
    setDesktopApiForTests(fakeApi(calls))
    const store = useTeamCloseStore()
    await store.load(CONN, '2026-10')
    await store.chooseMerchant(CONN, '2026-10', { merchantId: 'mer_demo', mode: 'test' })
    expect(store.month).toMatchObject({ state: 'submitted', submittedBy: 'ana' })
    expect(store.chain).toEqual({ verifiedThrough: 0, broken: null })
    await store.act('2026-10', 'sign_off', '')
    expect(calls).toMatchObject([
      { merchant: { merchantId: 'mer_demo', mode: 'test' }, action: 'sign_off', baseVersion: 2 },
    ])
    expect(store.error).toMatchObject({ code: 'conflict', detail: 'same_person' })
    setActivePinia(createPinia())
    const again = useTeamCloseStore()
    await again.load(CONN, '2026-10')
    expect(again.merchant).toEqual({ merchantId: 'mer_demo', mode: 'test' })
  })

  it('sends a submit only when the close checklist has no blocking item, and says why it waits', async () => {
    const calls: unknown[] = []
    setDesktopApiForTests(fakeApi(calls))
    const store = useTeamCloseStore()
    await store.load(CONN, '2026-10')
    await store.chooseMerchant(CONN, '2026-10', { merchantId: 'mer_demo', mode: 'test' })
    await store.act('2026-10', 'submit', '', 2)
    expect(calls).toEqual([])
    expect(store.checklistOpen).toBe(2)
    await store.act('2026-10', 'submit', '', 0)
    expect(calls).toMatchObject([{ action: 'submit' }])
    expect(store.checklistOpen).toBe(0)
  })

  it("sends the month's payout closing with a sign-off only, for every desktop's lock to keep", async () => {
    const calls: Record<string, unknown>[] = []
    setDesktopApiForTests(fakeApi(calls))
    const store = useTeamCloseStore()
    await store.load(CONN, '2026-10')
    await store.chooseMerchant(CONN, '2026-10', { merchantId: 'mer_demo', mode: 'test' })
    const close = { closing: { JPY: 12_050 }, paidDifferences: { tr_1: 0 } }
    await store.act('2026-10', 'submit', '', 0, close)
    await store.act('2026-10', 'sign_off', '', 0, close)
    await store.act('2026-10', 'sign_off', '', 0, null)
    expect(calls.map((c) => [c['action'], c['payoutClose']])).toEqual([
      ['submit', undefined],
      ['sign_off', close],
      ['sign_off', undefined],
    ])
  })
})
