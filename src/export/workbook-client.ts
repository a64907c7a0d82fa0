/**
 * Sends a workbook plan to the host: begin, then each sheet's rows in chunks of ≤ 2,000, then finish. The
 * host writes as it goes, so neither side ever holds the whole file. Abort or failure cancels the export,
 * which removes the host's temporary file; nothing is delivered.
 */
import type { DeliveredFile } from '../../electron/shared/contract/files'
import { MAX_ROWS_PER_CHUNK, packRows, type ExportRow } from '../../electron/shared/contract/export'
import { desktopApi } from '../platform'
import { HostWriteInFlight, startDownload, writeFileThroughHost } from '../platform/files'
import { ledgerCsvPages, type LedgerCsvPage } from './ledger-csv'
import {
  buildMonthWorkbook,
  planMonthWorkbook,
  type MonthSource,
  type MonthWorkbookInput,
  type MonthWorkbookMeta,
  type WorkbookPlan,
} from './month-workbook'

export interface ExportProgress {
  sheet: string
  rowsWritten: number
  totalRows: number
}

export interface ExportOptions {
  signal?: AbortSignal
  onProgress?: (progress: ExportProgress) => void
  rowsPerChunk?: number
}

/** Text per call kept well under the web host's 16 MB body limit, whatever the rows hold. */
const MAX_CHUNK_CHARS = 4 * 1024 * 1024

function approxChars(row: ExportRow): number {
  let n = 2
  for (const cell of row) n += typeof cell === 'string' ? cell.length + 3 : 24
  return n
}

/**
 * Rows in chunks of at most `size` rows and about MAX_CHUNK_CHARS characters. Rows are taken from `rows`
 * only as chunks are asked for: one chunk and the row that closed it at most are built ahead.
 */
export async function* chunksOf(
  rows: Iterable<ExportRow> | AsyncIterable<ExportRow>,
  size: number,
): AsyncGenerator<ExportRow[]> {
  let chunk: ExportRow[] = []
  let chars = 0
  for await (const row of rows) {
    const n = approxChars(row)
    if (chunk.length > 0 && (chunk.length >= size || chars + n > MAX_CHUNK_CHARS)) {
      yield chunk
      chunk = []
      chars = 0
    }
    chunk.push(row)
    chars += n
  }
  if (chunk.length > 0) yield chunk
}

export async function writeWorkbookThroughHost(
  plan: WorkbookPlan,
  options: ExportOptions = {},
): Promise<DeliveredFile> {
  const api = desktopApi()
  const size = Math.min(Math.max(1, options.rowsPerChunk ?? MAX_ROWS_PER_CHUNK), MAX_ROWS_PER_CHUNK)
  const totalRows = plan.sheets.reduce((n, s) => n + s.rowCount, 0)
  options.signal?.throwIfAborted()
  const { exportId } = await api.export.begin({
    suggestedName: plan.suggestedName,
    title: plan.title,
    sheets: plan.sheets.map((s) => s.spec),
  })
  // The next chunk is built while the host writes the last one, so the renderer and the host work side
  // by side instead of in turns; only one call is outstanding at a time, so chunks arrive in order.
  const writing = new HostWriteInFlight()
  try {
    for (const sheet of plan.sheets) {
      const width = sheet.spec.columns.length
      for await (const rows of chunksOf(sheet.rows(), size)) {
        options.signal?.throwIfAborted()
        // Packed, a chunk copies across IPC (or JSON) several times faster; formulas go as plain rows.
        const packed = packRows(rows, width)
        const args = packed
          ? { exportId, sheet: sheet.spec.name, packed }
          : { exportId, sheet: sheet.spec.name, rows }
        await writing.idle()
        options.signal?.throwIfAborted()
        writing.start(async () => {
          const { rowsWritten } = await api.export.appendRows(args)
          options.onProgress?.({ sheet: sheet.spec.name, rowsWritten, totalRows })
        })
      }
    }
    await writing.idle()
    options.signal?.throwIfAborted()
    const delivered = await api.export.finish({ exportId })
    if (delivered.savedTo === 'download') startDownload(delivered.downloadUrl, delivered.fileName)
    return delivered
  } catch (error) {
    // A chunk still being written finishes (or fails) before the cancel, which then removes the file.
    await writing.settle()
    await api.export.cancel({ exportId }).catch(() => undefined)
    throw error
  }
}

/** The month-end workbook of a connection (or one store) and period, built from records in memory and delivered. */
export function exportMonthWorkbook(
  input: MonthWorkbookInput,
  options: ExportOptions = {},
): Promise<DeliveredFile> {
  return writeWorkbookThroughHost(buildMonthWorkbook(input), options)
}

/** The month-end workbook with its records read from `source` a batch at a time as it is written. */
export function exportMonthWorkbookFrom(
  input: MonthWorkbookMeta,
  source: MonthSource,
  options: ExportOptions = {},
): Promise<DeliveredFile> {
  return writeWorkbookThroughHost(planMonthWorkbook(input, source), options)
}

/**
 * The ledger's current filter as CSV (UTF-8 with BOM), through the host's file writer, a page at a time:
 * the next page is read only once the host has taken the last one. Abort or failure cancels the file.
 */
export function exportLedgerCsv(
  suggestedName: string,
  pages: AsyncIterable<LedgerCsvPage>,
  timeZone: string,
  options: { signal?: AbortSignal; onProgress?: (bytes: number) => void } = {},
): Promise<DeliveredFile> {
  return writeFileThroughHost(suggestedName, 'text/csv', ledgerCsvPages(pages, timeZone), options)
}
