/**
 * The audit rows the ledger shows (of one record, of a month, or of the whole connection, newest first),
 * and the records they name.
 */
import type { Ref } from 'vue'
import { appCache } from '../../db/cache'
import type { AuditEntry, HistoryRecord, MarkRef, RecordKey } from '../../domain/records'

export interface LedgerAudit {
  auditFor: (period: string | null, record?: MarkRef) => Promise<AuditEntry[]>
  /** The connection's records of these keys that still exist, by key (for an audit page's descriptions). */
  recordsByKey: (keys: readonly RecordKey[]) => Promise<Map<RecordKey, HistoryRecord>>
}

export function useLedgerAudit(connectionId: Ref<string | null>): LedgerAudit {
  async function auditFor(period: string | null, record?: MarkRef): Promise<AuditEntry[]> {
    if (!connectionId.value) return []
    const cache = appCache()
    const list = record
      ? await cache.audit.listByKey(connectionId.value, record)
      : period
        ? await cache.audit.listByPeriod(connectionId.value, period)
        : await cache.audit.listByConnection(connectionId.value)
    // Newest first: by row (sequence), then by place in the row, reversed.
    return [...list].sort((a, b) => (b.seq ?? 0) - (a.seq ?? 0) || (b.part ?? 0) - (a.part ?? 0))
  }

  async function recordsByKey(keys: readonly RecordKey[]): Promise<Map<RecordKey, HistoryRecord>> {
    if (!connectionId.value || keys.length === 0) return new Map()
    const found = await appCache().history.getMany(connectionId.value, keys)
    return new Map(found.flatMap((r) => (r ? [[r.key, r] as const] : [])))
  }

  return { auditFor, recordsByKey }
}
