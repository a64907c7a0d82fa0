/**
 * The connections as the cache remembers them (label, time zone, last sync, store names): readable
 * offline, unlike connections-store, which asks the host.
 */
import { appCache } from '../db/cache'
import type { CachedConnection } from '../domain/records'

export function listCachedConnections(): Promise<CachedConnection[]> {
  return appCache().connections.list()
}

/** Store names of a connection by store id (known after a first sync). */
export async function storeNamesOf(connectionId: string): Promise<Map<string, string>> {
  const stores = await appCache().connections.listStores(connectionId)
  return new Map(stores.map((s) => [s.storeId, s.storeName]))
}
