/** Asks the browser not to evict the cache (DESIGN §4), and reports how much room it uses. */

export type PersistResult = 'granted' | 'denied' | 'unsupported'

export interface StorageEstimateResult {
  usage: number | null
  quota: number | null
  persisted: boolean | null
}

/** `nav` is injectable for tests; by default the global navigator, when there is one. */
type StorageNavigator = { storage?: Partial<Pick<StorageManager, 'persist' | 'persisted' | 'estimate'>> }

function defaultNavigator(): StorageNavigator | undefined {
  return typeof navigator === 'undefined' ? undefined : navigator
}

export async function requestPersistentStorage(
  nav: StorageNavigator | undefined = defaultNavigator(),
): Promise<PersistResult> {
  const storage = nav?.storage
  if (!storage?.persist) return 'unsupported'
  try {
    // Already persistent: asking again may prompt in some browsers, so check first.
    if (storage.persisted && (await storage.persisted())) return 'granted'
    return (await storage.persist()) ? 'granted' : 'denied'
  } catch {
    return 'denied'
  }
}

export async function estimateStorage(
  nav: StorageNavigator | undefined = defaultNavigator(),
): Promise<StorageEstimateResult> {
  const storage = nav?.storage
  const [estimate, persisted] = await Promise.all([
    storage?.estimate ? storage.estimate().catch(() => undefined) : undefined,
    storage?.persisted ? storage.persisted().catch(() => null) : null,
  ])
  return { usage: estimate?.usage ?? null, quota: estimate?.quota ?? null, persisted }
}
