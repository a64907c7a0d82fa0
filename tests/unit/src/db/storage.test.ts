import { describe, expect, it } from 'vitest'
import { estimateStorage, requestPersistentStorage } from '../../../../src/db/storage'

describe('requestPersistentStorage', () => {
  it('reports unsupported without navigator.storage.persist', async () => {
    expect(await requestPersistentStorage(undefined)).toBe('unsupported')
    expect(await requestPersistentStorage({})).toBe('unsupported')
  })

  it('reports granted or denied from the browser', async () => {
    expect(await requestPersistentStorage({ storage: { persist: () => Promise.resolve(true) } })).toBe(
      'granted',
    )
    expect(await requestPersistentStorage({ storage: { persist: () => Promise.resolve(false) } })).toBe(
      'denied',
    )
    expect(
      await requestPersistentStorage({ storage: { persist: () => Promise.reject(new Error('x')) } }),
    ).toBe('denied')
  })

  it('does not ask again when storage is already persistent', async () => {
    let asked = 0
    const storage = {
      persisted: () => Promise.resolve(true),
      persist: () => {
        asked++
        return Promise.resolve(false)
      },
    }
    expect(await requestPersistentStorage({ storage })).toBe('granted')
    expect(asked).toBe(0)
  })
})

describe('estimateStorage', () => {
  it('returns usage, quota and persistence, or nulls when unknown', async () => {
    const storage = {
      estimate: () => Promise.resolve({ usage: 10, quota: 100 }),
      persisted: () => Promise.resolve(false),
    }
    expect(await estimateStorage({ storage })).toEqual({ usage: 10, quota: 100, persisted: false })
    expect(await estimateStorage(undefined)).toEqual({ usage: null, quota: null, persisted: null })
  })
})
