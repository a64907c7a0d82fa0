// Proves the Chromium runner measures real IndexedDB: writes and counts n records with the raw API.
;(window as unknown as { __bench: (n: number) => Promise<unknown> }).__bench = async (n: number) => {
  const db = await new Promise<IDBDatabase>((resolve, reject) => {
    const open = indexedDB.open('smoke', 1)
    open.onupgradeneeded = () => open.result.createObjectStore('r', { keyPath: 'id' })
    open.onsuccess = () => resolve(open.result)
    open.onerror = () => reject(new Error(String(open.error)))
  })
  const started = performance.now()
  await new Promise<void>((resolve, reject) => {
    const tx = db.transaction('r', 'readwrite')
    for (let i = 0; i < n; i++) tx.objectStore('r').put({ id: i, v: `x${i}` })
    tx.oncomplete = () => resolve()
    tx.onerror = () => reject(new Error(String(tx.error)))
  })
  const count = await new Promise<number>((resolve) => {
    const req = db.transaction('r').objectStore('r').count()
    req.onsuccess = () => resolve(req.result)
  })
  return { count, ms: performance.now() - started, userAgent: navigator.userAgent }
}
