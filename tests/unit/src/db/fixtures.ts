/** Fresh fake-indexeddb databases for the cache's unit tests; the data builders are tests/support's. */
import Dexie from 'dexie'
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb'
import { ClosebookDb, SCHEMA_V6, type IndexedDbDeps } from '../../../../src/db/database'
import { MarkingService, type ApplyResult } from '../../../../src/db/marking-service'
import type { AuditEntry, MarkRecord, MarkRef, RecordKey } from '../../../../src/domain/records'

export * from '../../../support/api-items'
export * from '../../../support/cache'

/** A fresh, isolated IndexedDB per call, so tests never share state. */
export function freshDeps(): IndexedDbDeps {
  return { indexedDB: new IDBFactory(), IDBKeyRange }
}

/** Leaves an empty cache of schema v6 under `name`, as an older app version would have. */
export async function createV6Cache(deps: IndexedDbDeps, name = 'closebook'): Promise<void> {
  const v6 = new Dexie(name, deps)
  v6.version(6).stores(SCHEMA_V6)
  await v6.open()
  v6.close()
}

export function openDb(name = 'closebook-test', deps: IndexedDbDeps = freshDeps()): ClosebookDb {
  return new ClosebookDb(name, deps)
}

/** Writes fixed marks and audit entries through the marking service (a planner that ignores the snapshot). */
export async function applyPlan(
  db: ClosebookDb,
  plan: { connectionId: string; puts: MarkRecord[]; deletes: RecordKey[]; audit: AuditEntry[] },
  refs: readonly MarkRef[],
): Promise<ApplyResult> {
  const { connectionId, puts, deletes, audit } = plan
  const done = await new MarkingService(db).planAndApply(connectionId, refs, () => ({
    puts,
    deletes,
    audit,
    refused: [],
  }))
  return done.result
}
