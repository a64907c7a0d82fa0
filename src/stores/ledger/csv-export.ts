/** The current filter's records as CSV (UTF-8 with BOM, formula-guarded), through the host. */
import type { Ref } from 'vue'
import { toSafeFileNamePart } from '../../../electron/shared/file-name'
import { appCache } from '../../db/cache'
import type { MarkRecord, RecordKey } from '../../domain/records'
import { exportLedgerCsv } from '../../export/workbook-client'
import { toAppError } from '../../platform/app-error'
import type { LedgerNotice } from './notice'
import type { LedgerQuery } from './query'

/** Returns the export: it resolves to the saved file's name, or null (no connection, or an error noticed). */
export function useLedgerCsvExport(
  query: LedgerQuery,
  notice: Ref<LedgerNotice | null>,
): () => Promise<string | null> {
  return async function exportCsv() {
    const filter = query.currentFilter()
    if (!filter) return null
    const cache = appCache()
    try {
      const records =
        query.sortColumn.value === 'date'
          ? await cache.history.queryPage({
              ...filter,
              order: query.order.value,
              offset: 0,
              limit: await query.exactTotal(),
            })
          : // Sorted in memory: every row is loaded, export them in the order shown.
            [...query.rows.value.entries()].sort(([a], [b]) => a - b).map(([, r]) => r)
      const found = await cache.marks.getMany(filter.connectionId, records)
      const markMap = new Map<RecordKey, MarkRecord>()
      found.forEach((m) => m && markMap.set(m.key, m))
      // The period label comes from the filters (and so from the address): kept to the file-name rule.
      const name = `closebook-ledger-${toSafeFileNamePart(query.periodLabel()) || 'all'}.csv`
      return (await exportLedgerCsv(name, records, markMap, query.timeZone.value)).fileName
    } catch (e) {
      notice.value = { kind: 'error', error: toAppError(e) }
      return null
    }
  }
}
