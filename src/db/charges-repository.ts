/** Charge-list records (fees, merchant_transaction_id): written by sync with the same page pattern. */
import type { ClosebookDb } from './database'
import { HistoryWriter } from './history-writer'
import type { ChargeRecord, SyncCheckpoint } from '../domain/records'

export class ChargesRepository {
  constructor(private readonly db: ClosebookDb) {}

  /** Stores one page and its checkpoint in one transaction (HistoryWriter.putChargesPage). */
  putPage(
    connectionId: string,
    records: readonly ChargeRecord[],
    checkpoint: SyncCheckpoint,
  ): Promise<number> {
    return new HistoryWriter(this.db).putChargesPage(connectionId, records, checkpoint)
  }

  async get(connectionId: string, id: string): Promise<ChargeRecord | undefined> {
    return this.db.charges.get([connectionId, id])
  }

  async getMany(connectionId: string, ids: readonly string[]): Promise<(ChargeRecord | undefined)[]> {
    return this.db.charges.bulkGet(ids.map((id) => [connectionId, id] as [string, string]))
  }

  /** Charges created in [from, to), oldest first. */
  async inRange(connectionId: string, from: number, to: number): Promise<ChargeRecord[]> {
    return this.db.charges
      .where('[connectionId+createdAt]')
      .between([connectionId, from], [connectionId, to], true, false)
      .toArray()
  }

  async count(connectionId: string, from = -Infinity, to = Infinity): Promise<number> {
    return this.db.charges
      .where('[connectionId+createdAt]')
      .between([connectionId, from], [connectionId, to], true, false)
      .count()
  }
}
