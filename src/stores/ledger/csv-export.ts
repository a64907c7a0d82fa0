/**
 * The current filter's records as CSV (UTF-8 with BOM, formula-guarded), through the host. Records and
 * their marks are read a page at a time as the host takes the text, so an export of a million rows holds
 * one page, never the whole result; the host writes a temporary file and delivers it only when whole.
 */
import type { Ref } from 'vue'
import { toSafeFileNamePart } from '../../../electron/shared/file-name'
import { appCache } from '../../db/cache'
import { historyPages, HISTORY_PAGE_SIZE } from '../../db/history-pages'
import { readAhead } from '../../db/read-ahead'
import type { HistoryFilter } from '../../db/history-repository'
import type { HistoryRecord } from '../../domain/records'
import type { LedgerCsvPage } from '../../export/ledger-csv'
import { exportLedgerCsv } from '../../export/workbook-client'
import { toAppError } from '../../platform/app-error'
import type { LedgerNotice } from './notice'
import type { LedgerQuery } from './query'

/**
 * The rows to export, in the order shown, a page at a time with their marks. The next page and its marks
 * are read while this one is formatted and written (readAhead: two pages held at most); the marks are one
 * read of the page's day rows, with the orphan row read once for the whole export
 * (MarksRepository.pageReader).
 */
function exportPages(query: LedgerQuery, filter: HistoryFilter): AsyncGenerator<LedgerCsvPage> {
  const cache = appCache()
  const records: AsyncIterable<readonly HistoryRecord[]> | Iterable<readonly HistoryRecord[]> =
    query.sortColumn.value === 'date'
      ? historyPages(cache.history, filter, query.order.value, HISTORY_PAGE_SIZE)
      : // Sorted in memory: every row is loaded (the sort's limit bounds them); exported in the order shown.
        slices(
          [...query.rows.value.entries()].sort(([a], [b]) => a - b).map(([, r]) => r),
          HISTORY_PAGE_SIZE,
        )
  const marksOf = cache.marks.pageReader(filter.connectionId)
  return readAhead(
    (async function* () {
      for await (const page of records) yield { records: page, marks: await marksOf(page) }
    })(),
  )
}

function* slices<T>(items: readonly T[], size: number): Generator<readonly T[]> {
  for (let i = 0; i < items.length; i += size) yield items.slice(i, i + size)
}

/** Returns the export: it resolves to the saved file's name, or null (no connection, or an error noticed). */
export function useLedgerCsvExport(
  query: LedgerQuery,
  notice: Ref<LedgerNotice | null>,
): (options?: { signal?: AbortSignal }) => Promise<string | null> {
  return async function exportCsv(options = {}) {
    const filter = query.currentFilter()
    if (!filter) return null
    try {
      // The period label comes from the filters (and so from the address): kept to the file-name rule.
      const name = `closebook-ledger-${toSafeFileNamePart(query.periodLabel()) || 'all'}.csv`
      const pages = exportPages(query, filter)
      return (await exportLedgerCsv(name, pages, query.timeZone.value, options)).fileName
    } catch (e) {
      // Cancelled: the host removed the partial file; nothing to say.
      if (options.signal?.aborted) return null
      notice.value = { kind: 'error', error: toAppError(e) }
      return null
    }
  }
}
