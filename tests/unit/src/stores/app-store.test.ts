import { createPinia, setActivePinia } from 'pinia'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { watch } from 'vue'
import { createCache, setAppCacheForTests } from '../../../../src/db/cache'
import { ClosebookDb, CURRENT_VERSION } from '../../../../src/db/database'
import { useAppStore } from '../../../../src/stores/app-store'
import { createV6Cache, freshDeps } from '../db/fixtures'
import v6Cache from '../db/migrations/cache-v6.json'

let db: ClosebookDb | undefined

beforeEach(() => setActivePinia(createPinia()))
afterEach(() => {
  db?.close()
  setAppCacheForTests(undefined)
})

/** Opens the app's cache through the store, noting whether the store said "upgrading" while it opened. */
async function openThroughStore(deps: ReturnType<typeof freshDeps>): Promise<boolean> {
  db = new ClosebookDb('closebook', deps)
  setAppCacheForTests(createCache(db))
  const store = useAppStore()
  let upgradingWhileOpening: boolean | undefined
  // Runs inside the open, after any migration and before open() resolves.
  db.on('ready', () => {
    upgradingWhileOpening = store.cacheUpgrading
  })
  await store.openCache()
  expect(db.isOpen()).toBe(true)
  expect(db.verno).toBe(CURRENT_VERSION)
  expect(store.cacheUpgrading).toBe(false)
  expect(store.error).toBeNull()
  return upgradingWhileOpening ?? false
}

describe('app store: opening the cache', () => {
  it('says the cache is being upgraded while an older one migrates, and only then', async () => {
    const deps = freshDeps()
    await createV6Cache(deps)
    expect(await openThroughStore(deps)).toBe(true)
  })

  it('tells how far the migration has got while it runs, and clears it after', async () => {
    const deps = freshDeps()
    await createV6Cache(deps)
    db = new ClosebookDb('closebook', deps)
    setAppCacheForTests(createCache(db))
    const store = useAppStore()
    let during: unknown
    db.on('ready', () => {
      during = store.cacheUpgradeProgress
    })
    await store.openCache()
    // v6 → v7 passes over history (empty here) to file its search tokens: 0 of 0.
    expect(during).toEqual({ version: 7, done: 0, total: 0 })
    expect(store.cacheUpgradeProgress).toBeNull()
  })

  it('says nothing for a new cache or one already current', async () => {
    const deps = freshDeps()
    expect(await openThroughStore(deps)).toBe(false)
    db?.close()
    setActivePinia(createPinia())
    expect(await openThroughStore(deps)).toBe(false)
  })

  it('moves the history an older cache set aside in the background, telling how far, then clears it', async () => {
    const deps = freshDeps()
    const old = new ClosebookDb('closebook', deps, { upToVersion: 6 })
    await old.open()
    for (const [table, rows] of Object.entries(v6Cache)) await old.table(table).bulkAdd(rows)
    old.close()
    db = new ClosebookDb('closebook', deps)
    setAppCacheForTests(createCache(db))
    const store = useAppStore()
    const seen: unknown[] = []
    watch(
      () => store.historyMove,
      (p) => seen.push(p),
      { flush: 'sync' },
    )
    await store.openCache()
    const opened = db
    await vi.waitFor(async () => expect(await opened.legacyHistory.count()).toBe(0))
    await vi.waitFor(() => expect(store.historyMove).toBeNull())
    expect(seen[0]).toEqual({ stage: 'filing', moved: 0, left: 3 })
    expect(seen[seen.length - 1]).toBeNull()
    expect(await opened.historyParts.orderBy('keys').count()).toBe(3)
    expect(store.error).toBeNull()
  })
})
