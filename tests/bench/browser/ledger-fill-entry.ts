/**
 * Runs in Chromium on the app's own origin (the scroll suite serves it there), so it writes the app's own
 * cache: adds `records` history records to an existing connection through HistoryRepository.putPage, the
 * sync writer's path, in pages of 5,000 with a finished checkpoint of their own. Items come from the
 * sandbox's generator in Node (`__items`), as in the cache suite.
 */
import type { HistoryItem } from '../../../electron/shared/payment-api'
import { ClosebookDb } from '../../../src/db/database'
import { historyRecordOf } from '../../../src/db/history-record'
import { HistoryRepository } from '../../../src/db/history-repository'
import { fingerprintOf } from '../../../src/domain/fingerprint'
import type { SyncCheckpoint } from '../../../src/domain/records'
import type { LedgerFillArgs, LedgerFillResult } from '../shared/ledger-scroll-types'
import { reporting } from './page-errors'

const CHUNK = 5000
const FOREVER = 8.64e15

type Feed = (offset: number, count: number) => Promise<string>
type Stage = (stage: string) => Promise<void>

async function fill(args: LedgerFillArgs): Promise<LedgerFillResult> {
  const w = window as unknown as { __items: Feed; __stage: Stage }
  const db = new ClosebookDb()
  await db.open()
  const history = new HistoryRepository(db, fingerprintOf)
  const started = performance.now()
  const syncedAt = Date.now()
  for (let i = 0; i < args.records; i += CHUNK) {
    if (i % 50_000 === 0) await w.__stage(`filled ${i} of ${args.records}`)
    const items = JSON.parse(await w.__items(i, CHUNK)) as HistoryItem[]
    const records = items.map((item) => historyRecordOf(args.connectionId, item, syncedAt))
    const checkpoint: SyncCheckpoint = {
      connectionId: args.connectionId,
      partitionId: 'bench-fill',
      resource: 'transaction_history',
      storeId: null,
      from: 0,
      to: FOREVER,
      cursor: null,
      done: true,
      records: i + records.length,
      requests: 0,
      updatedAt: syncedAt,
    }
    await history.putPage(args.connectionId, records, checkpoint)
  }
  const cached = await history.count({ connectionId: args.connectionId, from: 0, to: FOREVER })
  db.close()
  return { cached, fillMs: Math.round(performance.now() - started) }
}

;(window as unknown as { __bench: typeof fill }).__bench = reporting(fill)
