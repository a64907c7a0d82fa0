/** What the cache knows of each connection (no secrets: those stay in main) and its stores. */
import type { ClosebookDb } from './database'
import { HistoryWriter } from './history-writer'
import type { CachedConnection, StoreRecord, SyncResource } from '../domain/records'
import { assertSameConnection, connectionBounds } from './repository-helpers'

export class ConnectionsRepository {
  constructor(private readonly db: ClosebookDb) {}

  async get(id: string): Promise<CachedConnection | undefined> {
    return this.db.connections.get(id)
  }

  async list(): Promise<CachedConnection[]> {
    return this.db.connections.toArray()
  }

  async put(connection: CachedConnection): Promise<void> {
    await this.db.connections.put(connection)
  }

  /** Removes the connection and its stores; its history, marks and audit stay until cleared on purpose. */
  async delete(id: string): Promise<void> {
    const { db } = this
    await db.transaction('rw', db.connections, db.stores, async () => {
      await db.connections.delete(id)
      await this.storesOf(id).delete()
    })
  }

  async listStores(connectionId: string): Promise<StoreRecord[]> {
    return this.storesOf(connectionId).toArray()
  }

  /** Replaces the connection's store list with what the API returned last. */
  async replaceStores(connectionId: string, stores: readonly StoreRecord[]): Promise<void> {
    assertSameConnection(connectionId, stores, 'stores')
    const { db } = this
    await db.transaction('rw', db.stores, async () => {
      await this.storesOf(connectionId).delete()
      await db.stores.bulkPut(stores)
    })
  }

  /**
   * Records a finished sync: lastSyncedAt, and the newest created_on per resource. High-water marks
   * only move forward, so re-syncing an old window never pulls incremental sync back.
   */
  async recordSync(
    id: string,
    syncedAt: number,
    newest: Partial<Record<SyncResource, number>> = {},
  ): Promise<CachedConnection> {
    const { db } = this
    return db.transaction('rw', db.connections, async () => {
      const conn = await db.connections.get(id)
      if (!conn) throw new Error(`Unknown connection ${id}`)
      const highWater = { ...conn.highWater }
      for (const [resource, at] of Object.entries(newest) as [SyncResource, number][]) {
        highWater[resource] = Math.max(highWater[resource] ?? -Infinity, at)
      }
      const next: CachedConnection = { ...conn, lastSyncedAt: syncedAt, highWater }
      await db.connections.put(next)
      return next
    })
  }

  /**
   * Drops the synced copy (history, charges, checkpoints, high-water) for a full re-sync. Marks, audit
   * and locks are the accountant's work and stay: re-synced records find their marks again by key.
   */
  async clearSyncedData(id: string): Promise<void> {
    const { db } = this
    const writer = new HistoryWriter(db)
    const tables = [db.connections, ...writer.historyTables(), ...writer.chargeTables(), db.checkpoints]
    await db.transaction('rw', tables, async () => {
      await writer.clearConnection(id)
      const conn = await db.connections.get(id)
      if (conn) await db.connections.put({ ...conn, highWater: {}, lastSyncedAt: null })
    })
  }

  private storesOf(connectionId: string) {
    return this.db.stores.where('[connectionId+storeId]').between(...connectionBounds(connectionId))
  }
}
