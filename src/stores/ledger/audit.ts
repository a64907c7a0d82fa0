/** The audit rows the ledger shows: of one record, of a month, or of the whole connection, newest first. */
import type { Ref } from 'vue'
import { appCache } from '../../db/cache'
import type { AuditEntry, RecordKey } from '../../db/records'

export function useLedgerAudit(
  connectionId: Ref<string | null>,
): (period: string | null, key?: RecordKey) => Promise<AuditEntry[]> {
  return async function auditFor(period, key) {
    if (!connectionId.value) return []
    const cache = appCache()
    const list = key
      ? await cache.audit.listByKey(connectionId.value, key)
      : period
        ? await cache.audit.listByPeriod(connectionId.value, period)
        : await cache.audit.listByConnection(connectionId.value)
    // Newest first: by row (sequence), then by place in the row, reversed.
    return [...list].sort((a, b) => (b.seq ?? 0) - (a.seq ?? 0) || (b.part ?? 0) - (a.part ?? 0))
  }
}
