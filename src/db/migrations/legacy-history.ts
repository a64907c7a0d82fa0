/**
 * Setting a schema-6-or-older cache's history aside (version 17, frozen). Opening such a cache ran passes
 * over every record (v2, v5, v6, v7) and had Chromium drop v5's search token index entry by entry inside
 * the version change: minutes at 500k records. Instead, the version change renames the old `history`
 * store to `legacyHistory`, which takes the same few milliseconds at any size, before Dexie applies any
 * step: the steps then run on an empty `history` (marks of a v5 or older cache land in the orphan row,
 * day -1, as v6 files a mark whose record it does not find), and the rows are filed in day parts in the
 * background afterwards (legacy-move.ts), each converted as the frozen steps would have converted it.
 */

import type { LegacyHistoryRow } from '../database'
import type { HistoryRecord } from '../../domain/records'
import { orderRefOf as orderRefV2 } from './v2'

/**
 * The record a set-aside row holds, as the frozen steps would have left it: the row itself, with v2's
 * order number where a v1 row has none, less the search fields no reader uses (backups leave them out).
 * The legacy store's reading hook (database.ts): every read of it returns such records.
 */
export function legacyRecordOf(row: LegacyHistoryRow): HistoryRecord {
  const { searchText: _text, searchTokens: _tokens, ...record } = row
  // A v1 row has no order number: v2 set it from the item, as here.
  if ((record as Partial<HistoryRecord>).orderRef === undefined) record.orderRef = orderRefV2(record.raw)
  return record
}

/** The store the old rows wait in. */
export const LEGACY_HISTORY_TABLE = 'legacyHistory'

/**
 * Its indexes: those of `history` at versions 4–6. Every registered step declares the store with these
 * (database.ts), so Dexie neither drops it nor touches its indexes between steps; a v1–v3 store gets the
 * few it lacks added once, in the same version change.
 */
export const LEGACY_HISTORY_STORE =
  '[connectionId+key], [connectionId+createdAt], [connectionId+type+createdAt], ' +
  '[connectionId+status+createdAt], [connectionId+storeId+createdAt], ' +
  '[connectionId+currency+createdAt], [connectionId+mode+createdAt], [connectionId+chargeId], ' +
  '*searchTokens'

/** The newest schema whose history is set aside: v7 is where the slow steps end. */
export const LAST_SET_ASIDE_VERSION = 6

/** Whether a cache stored at IndexedDB version `nativeVersion` (Dexie's version × 10) is set aside. */
export function isSetAsideVersion(nativeVersion: number): boolean {
  return nativeVersion >= 10 && nativeVersion < (LAST_SET_ASIDE_VERSION + 1) * 10
}

/**
 * In the version change of a cache of schema 1–6: renames `history` to LEGACY_HISTORY_TABLE. Returns
 * whether it did. A store of that name already there (never, from released code) leaves both as they are.
 */
export function setAsideOldHistory(tx: IDBTransaction, oldNativeVersion: number): boolean {
  const names = tx.db.objectStoreNames
  if (
    !isSetAsideVersion(oldNativeVersion) ||
    !names.contains('history') ||
    names.contains(LEGACY_HISTORY_TABLE)
  )
    return false
  tx.objectStore('history').name = LEGACY_HISTORY_TABLE
  return true
}

/**
 * `factory` whose `open` sets a schema-6-or-older cache's history aside in the version change, before
 * the opener's own `upgradeneeded` handler (Dexie's) runs: this listener is added first. Every other
 * member is the factory's own.
 */
export function settingOldHistoryAside(factory: IDBFactory): IDBFactory {
  const open = (name: string, version?: number): IDBOpenDBRequest => {
    const request = version === undefined ? factory.open(name) : factory.open(name, version)
    request.addEventListener('upgradeneeded', (e) => {
      if (request.transaction) setAsideOldHistory(request.transaction, e.oldVersion)
    })
    return request
  }
  return new Proxy(factory, {
    get(target, property) {
      if (property === 'open') return open
      const value: unknown = Reflect.get(target, property)
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value
    },
  })
}
