/**
 * The renderer's one cache: a ClosebookDb and its repositories, opened once per page. Views and Pinia
 * stores reach the cache only through these repositories.
 */
import { fingerprintOf } from '../domain/fingerprint'
import { AuditRepository } from './audit-repository'
import { cleanOldGeneration } from './backup-generation'
import { ChargesRepository } from './charges-repository'
import { CheckpointsRepository } from './checkpoints-repository'
import { ConnectionsRepository } from './connections-repository'
import { ClosebookDb } from './database'
import { HistoryRepository } from './history-repository'
import { LocksRepository } from './locks-repository'
import { MarkingService } from './marking-service'
import { MarksRepository } from './marks-repository'
import { SettingsRepository } from './settings-repository'
import { requestPersistentStorage } from './storage'

export interface Cache {
  db: ClosebookDb
  history: HistoryRepository
  charges: ChargesRepository
  marks: MarksRepository
  /** Every change of a mark (ledger, matching) goes through it: planned and written in one transaction. */
  marking: MarkingService
  audit: AuditRepository
  locks: LocksRepository
  checkpoints: CheckpointsRepository
  connections: ConnectionsRepository
  settings: SettingsRepository
}

export function createCache(db: ClosebookDb): Cache {
  return {
    db,
    history: new HistoryRepository(db, fingerprintOf),
    charges: new ChargesRepository(db),
    marks: new MarksRepository(db),
    marking: new MarkingService(db),
    audit: new AuditRepository(db),
    locks: new LocksRepository(db),
    checkpoints: new CheckpointsRepository(db),
    connections: new ConnectionsRepository(db),
    settings: new SettingsRepository(db),
  }
}

let cache: Cache | undefined

export function appCache(): Cache {
  if (!cache) {
    const db = new ClosebookDb()
    cache = createCache(db)
    // A restore's switch empties the old generation after it commits; one interrupted (tab closed, crash)
    // is finished here, in the background, once the cache has opened.
    db.on('ready', () => void setTimeout(() => void cleanOldGeneration(db), 0))
    // A first sync stopped before its end left days out of the ledger's counts and searches: filed here.
    db.on(
      'ready',
      () =>
        void setTimeout(() => void cache?.history.writer.fileStoppedFirstSyncs().catch(() => undefined), 0),
    )
    // Ask once that the browser never evicts the cache under storage pressure; the answer shows in Settings.
    void requestPersistentStorage().catch(() => undefined)
  }
  return cache
}

/** For tests of stores and views. */
export function setAppCacheForTests(value: Cache | undefined): void {
  cache = value
}
