/** Sync resume points, one per partition. Pages write theirs through the history/charges repositories. */
import type { ClosebookDb } from './database'
import type { SyncCheckpoint, SyncResource } from '../domain/records'
import { connectionBounds } from './repository-helpers'

export class CheckpointsRepository {
  constructor(private readonly db: ClosebookDb) {}

  async get(connectionId: string, partitionId: string): Promise<SyncCheckpoint | undefined> {
    return this.db.checkpoints.get([connectionId, partitionId])
  }

  async list(connectionId: string, resource?: SyncResource): Promise<SyncCheckpoint[]> {
    const rows = await this.db.checkpoints
      .where('[connectionId+partitionId]')
      .between(...connectionBounds(connectionId))
      .toArray()
    return resource ? rows.filter((c) => c.resource === resource) : rows
  }

  async put(checkpoint: SyncCheckpoint): Promise<void> {
    await this.db.checkpoints.put(checkpoint)
  }

  /** Forgets a connection's checkpoints (all, or one resource's) so the next sync starts afresh. */
  async reset(connectionId: string, resource?: SyncResource): Promise<number> {
    const { db } = this
    return db.transaction('rw', db.checkpoints, async () => {
      const keys = (await this.list(connectionId, resource)).map((c): [string, string] => [
        connectionId,
        c.partitionId,
      ])
      await db.checkpoints.bulkDelete(keys)
      return keys.length
    })
  }
}
