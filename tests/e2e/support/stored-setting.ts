import type { Page } from '@playwright/test'

/**
 * A setting as the cache holds it, read straight from IndexedDB: a preference is remembered once its
 * write has committed, so a test waits for that before it reloads (a reload aborts a write in flight).
 */
export function storedSetting(page: Page, key: string): Promise<unknown> {
  return page.evaluate(async (settingKey) => {
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const open = indexedDB.open('closebook')
      open.onsuccess = () => resolve(open.result)
      open.onerror = () => reject(open.error ?? new Error('open failed'))
    })
    try {
      return await new Promise<unknown>((resolve, reject) => {
        const req = db.transaction('settings').objectStore('settings').get(settingKey)
        req.onsuccess = () => resolve((req.result as { value?: unknown } | undefined)?.value)
        req.onerror = () => reject(req.error ?? new Error('read failed'))
      })
    } finally {
      db.close()
    }
  }, key)
}
