import { createPinia, setActivePinia } from 'pinia'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createCache, setAppCacheForTests } from '../../../../src/db/cache'
import { ClosebookDb, CURRENT_VERSION } from '../../../../src/db/database'
import { useAppStore } from '../../../../src/stores/app-store'
import { createV6Cache, freshDeps } from '../db/fixtures'

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
})
