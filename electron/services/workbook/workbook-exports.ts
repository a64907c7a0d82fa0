/**
 * The month-end workbook, written by exceljs's streaming `WorkbookWriter` as the renderer sends rows:
 * begin → appendRows… → finish. Sheets are written one after another (exceljs buffers a sheet in memory
 * until the sheets before it are closed), so memory stays bounded by a chunk, not by the workbook.
 * The file grows under `<dataDir>/tmp`; only finish hands it, whole, to the host's `deliverFile` (save
 * dialog or download). Cancel, failure or a workbook left alone too long: the temporary file is removed
 * and nothing reaches the user's folder, so an earlier file at the target is never touched.
 */
import { randomBytes } from 'node:crypto'
import { createWriteStream, type WriteStream } from 'node:fs'
import { rm } from 'node:fs/promises'
import { join } from 'node:path'
import ExcelJS, { type Worksheet } from 'exceljs'
import type { DeliveredFile } from '../../shared/contract/files'
import { PACKED_TAG, packedRowCount, packedRowsProblem } from '../../shared/contract/export-packed'
import {
  neutralizeFormulaText,
  PACKED_ROWS_LIMITS,
  type ExportBeginArgs,
  type ExportRow,
  type ExportSheet,
  type PackedRows,
} from '../../shared/contract/export'
import { DesktopApiError } from '../../shared/errors'
import { checkFileName, type DeliverFile } from '../files/file-writer'
import { diskError } from '../files/move-into-place'
import { TempFolder } from '../files/temp-folder'
import { HEADER_STYLE, isWritableCell, isWritableDate, writeCell } from './cells'
import {
  abortZip,
  onZipError,
  sheetXml,
  stringTable,
  styleRegistry,
  type SheetXml,
  type StreamingWorkbook,
} from './exceljs-adapter'
import { columnName, packedRowsXml, repeatingColumns, RowStyles, rowXml, SharedTexts } from './row-xml'

interface SheetState {
  spec: ExportSheet
  ws: Worksheet
  columnNames: string[]
  headerRow: number
  lastRow: number
  /** Columns whose texts go through the shared-string table, decided on the sheet's first packed chunk. */
  sharedColumns: boolean[] | null
  committed: boolean
}

interface OpenExport {
  path: string
  out: WriteStream
  book: StreamingWorkbook
  sheets: SheetState[]
  styles: RowStyles
  texts: SharedTexts
  current: number
  suggestedName: string
  rowsWritten: number
  lastUsed: number
  /** Calls on one export run one at a time, in order. */
  queue: Promise<unknown>
  /** A stream error seen between calls; the next call reports it. */
  failure: unknown
}

export interface WorkbookExportsOptions {
  dataDir: string
  deliverFile: DeliverFile
  now?: () => number
  /** Exports with no call for this long are abandoned and removed. */
  idleMs?: number
  /** Shared with the other writers of the data directory; default: its own `<dataDir>/tmp`. */
  temp?: TempFolder
}

export class WorkbookExports {
  private readonly exports = new Map<string, OpenExport>()
  private readonly now: () => number
  private readonly idleMs: number
  private readonly temp: TempFolder

  constructor(private readonly options: WorkbookExportsOptions) {
    this.now = options.now ?? Date.now
    this.idleMs = options.idleMs ?? 15 * 60_000
    this.temp = options.temp ?? new TempFolder(join(options.dataDir, 'tmp'))
  }

  async begin(args: ExportBeginArgs): Promise<string> {
    checkFileName(args.suggestedName, ['.xlsx'])
    await this.sweep()
    await this.temp.ready()
    const exportId = randomBytes(18).toString('base64url')
    const path = join(this.temp.path, `${exportId}.xlsx.partial`)
    const out = createWriteStream(path, { flags: 'wx', mode: 0o600 })
    await new Promise<void>((resolve, reject) => {
      out.once('open', () => resolve())
      out.once('error', reject)
    }).catch((e: unknown) => Promise.reject(diskError(e, args.suggestedName)))
    let open: OpenExport
    try {
      open = this.startBook(path, out, args)
    } catch (error) {
      // The file exists but no export holds it: nothing else would ever remove it.
      await new Promise<void>((resolve) => out.destroy().once('close', () => resolve()))
      await rm(path, { force: true })
      throw error instanceof DesktopApiError ? error : diskError(error, args.suggestedName)
    }
    this.exports.set(exportId, open)
    try {
      for (const spec of args.sheets) open.sheets.push(this.addSheet(open.book, spec))
    } catch (error) {
      await this.discard(exportId)
      throw error
    }
    return exportId
  }

  /** The streaming workbook over the opened file, with its document properties. */
  private startBook(path: string, out: WriteStream, args: ExportBeginArgs): OpenExport {
    // exceljs's cells inline, not shared: its table would hold every text of the workbook. Data rows share
    // only repeated texts, a bounded number of them (`SharedTexts`).
    const book = new ExcelJS.stream.xlsx.WorkbookWriter({
      stream: out,
      useStyles: true,
      useSharedStrings: false,
    })
    book.creator = 'Closebook'
    book.lastModifiedBy = 'Closebook'
    // Document properties are shown by Excel and file browsers: guarded like any cell text.
    if (args.title) book.title = neutralizeFormulaText(args.title)
    const open: OpenExport = {
      path,
      out,
      book,
      sheets: [],
      styles: new RowStyles(styleRegistry(book)),
      texts: new SharedTexts(stringTable(book)),
      current: 0,
      suggestedName: args.suggestedName,
      rowsWritten: 0,
      lastUsed: this.now(),
      queue: Promise.resolve(),
      failure: null,
    }
    const remember = (e: unknown): void => {
      open.failure ??= e
    }
    out.on('error', remember)
    onZipError(book, remember)
    return open
  }

  private addSheet(book: StreamingWorkbook, spec: ExportSheet): SheetState {
    const preamble = spec.preamble ?? []
    const headerRow = preamble.length + 1
    const ws = book.addWorksheet(spec.name, {
      views: [{ state: 'frozen', xSplit: 0, ySplit: headerRow, topLeftCell: `A${headerRow + 1}` }],
    })
    ws.columns = spec.columns.map((c) => ({ width: c.width }))
    preamble.forEach((cells, i) => {
      checkRow(spec, cells)
      const row = ws.getRow(i + 1)
      cells.forEach((value, c) => writeCell(row.getCell(c + 1), value, spec.columns[c]?.kind ?? 'text'))
      row.commit()
    })
    const header = ws.getRow(headerRow)
    spec.columns.forEach((column, c) => {
      const cell = header.getCell(c + 1)
      cell.value = neutralizeFormulaText(column.header)
      cell.style = HEADER_STYLE
    })
    header.commit()
    for (const cells of spec.footer ?? []) checkRow(spec, cells)
    const columnNames = spec.columns.map((_, c) => columnName(c + 1))
    return { spec, ws, columnNames, headerRow, lastRow: headerRow, sharedColumns: null, committed: false }
  }

  private get(exportId: string): OpenExport {
    const open = this.exports.get(exportId)
    if (!open)
      throw new DesktopApiError(
        'not_found',
        'This workbook is no longer being written (finished, cancelled or expired).',
      )
    open.lastUsed = this.now()
    return open
  }

  /** Runs `task` after the export's earlier calls; any failure discards the whole export. */
  private run<T>(exportId: string, task: (open: OpenExport) => Promise<T>): Promise<T> {
    const open = this.get(exportId)
    const next = open.queue.then(async () => {
      if (!this.exports.has(exportId)) throw this.gone()
      try {
        if (open.failure) throw open.failure instanceof Error ? open.failure : new Error('stream failed')
        return await task(open)
      } catch (error) {
        await this.discard(exportId)
        throw error instanceof DesktopApiError ? error : diskError(error, open.suggestedName)
      }
    })
    open.queue = next.catch(() => undefined)
    return next
  }

  private gone(): DesktopApiError {
    return new DesktopApiError('cancelled', 'The workbook export was cancelled.')
  }

  /** Rows as arrays of cells, or packed (`export-packed.ts`): the same cells either way. */
  async appendRows(
    exportId: string,
    sheetName: string,
    rows: readonly ExportRow[] | PackedRows,
  ): Promise<number> {
    return this.run(exportId, async (open) => {
      const index = open.sheets.findIndex((s) => s.spec.name === sheetName)
      const sheet = open.sheets[index]
      if (!sheet) throw new DesktopApiError('invalid_argument', `The workbook has no sheet "${sheetName}".`)
      if (index < open.current)
        throw new DesktopApiError(
          'conflict',
          `Rows for "${sheetName}" came after a later sheet was started: sheets are written in order.`,
        )
      const packed = isPacked(rows) ? rows : null
      if (packed) checkPacked(sheet.spec, packed)
      else for (const row of rows as readonly ExportRow[]) checkRow(sheet.spec, row)
      while (open.current < index) commitSheet(open.sheets[open.current++], open.styles)
      const kinds = sheet.spec.columns.map((c) => c.kind)
      // The header row went through exceljs at begin, so the sheet's XML is open at <sheetData>.
      const stream = sheetXml(sheet.ws)
      let count: number
      if (packed) {
        count = packedRowCount(packed)
        sheet.sharedColumns ??= repeatingColumns(packed)
        packedRowsXml(
          packed,
          sheet.lastRow + 1,
          kinds,
          sheet.columnNames,
          open.styles,
          { columns: sheet.sharedColumns, texts: open.texts },
          (xml) => stream.write(xml),
        )
        sheet.lastRow += count
      } else {
        const list = rows as readonly ExportRow[]
        count = list.length
        let xml = ''
        for (const cells of list) xml += rowXml(++sheet.lastRow, cells, kinds, sheet.columnNames, open.styles)
        stream.write(xml)
      }
      await drained(open.out, stream)
      open.rowsWritten += count
      return open.rowsWritten
    })
  }

  async finish(exportId: string): Promise<DeliveredFile> {
    const open = await this.run(exportId, async (o) => {
      for (const sheet of o.sheets) commitSheet(sheet, o.styles)
      await o.book.commit() // resolves once the file stream has flushed everything
      return o
    })
    this.exports.delete(exportId)
    try {
      return await this.options.deliverFile(open.path, open.suggestedName)
    } finally {
      await rm(open.path, { force: true }) // a delivered file was moved; anything left is ours to remove
    }
  }

  async cancel(exportId: string): Promise<boolean> {
    if (!this.exports.has(exportId)) return false
    await this.discard(exportId)
    return true
  }

  private async discard(exportId: string): Promise<void> {
    const open = this.exports.get(exportId)
    if (!open) return
    this.exports.delete(exportId)
    try {
      abortZip(open.book)
    } catch {
      // already finished or failed: the file below is removed either way
    }
    await new Promise<void>((resolve) => {
      if (open.out.closed) return resolve()
      open.out.once('close', () => resolve())
      open.out.destroy()
    })
    await rm(open.path, { force: true })
  }

  /** Removes exports abandoned by a renderer that went away mid-write. */
  async sweep(): Promise<void> {
    const cutoff = this.now() - this.idleMs
    for (const [id, open] of [...this.exports]) if (open.lastUsed < cutoff) await this.discard(id)
  }

  async dispose(): Promise<void> {
    for (const id of [...this.exports.keys()]) await this.discard(id)
  }
}

function checkRow(spec: ExportSheet, cells: ExportRow): void {
  if (cells.length > spec.columns.length)
    throw new DesktopApiError(
      'invalid_argument',
      `A row of "${spec.name}" has ${cells.length} cells; the sheet has ${spec.columns.length} columns.`,
    )
  if (!cells.every(isWritableCell))
    throw new DesktopApiError(
      'invalid_argument',
      `A row of "${spec.name}" has a number or date Excel cannot hold.`,
    )
}

const isPacked = (rows: readonly ExportRow[] | PackedRows): rows is PackedRows => !Array.isArray(rows)

/** `checkRow` for a packed chunk. The contract checked its shape already; checked again here for callers
 * inside main, as the loop over numbers is cheap. */
function checkPacked(spec: ExportSheet, packed: PackedRows): void {
  const problem = packedRowsProblem(packed, PACKED_ROWS_LIMITS)
  if (problem) throw new DesktopApiError('invalid_argument', `Rows for "${spec.name}": ${problem}.`)
  if (packed.width > spec.columns.length)
    throw new DesktopApiError(
      'invalid_argument',
      `A row of "${spec.name}" has ${packed.width} cells; the sheet has ${spec.columns.length} columns.`,
    )
  const { cells } = packed
  const date = PACKED_TAG.date
  for (let i = 0; i < cells.length; i += 2)
    if (cells[i] === date && !isWritableDate(cells[i + 1] as number))
      throw new DesktopApiError(
        'invalid_argument',
        `A row of "${spec.name}" has a number or date Excel cannot hold.`,
      )
}

/**
 * Closes a sheet: writes its footer below the table, sets the autofilter from the header to the table's
 * last row (the footer stays out of filters and sorts), then ends its XML so the next sheet can stream.
 */
function commitSheet(sheet: SheetState | undefined, styles: RowStyles): void {
  if (!sheet || sheet.committed) return
  const tableEnd = sheet.lastRow
  const footer = sheet.spec.footer ?? []
  if (footer.length > 0) {
    const kinds = sheet.spec.columns.map((c) => c.kind)
    let xml = ''
    for (const cells of footer) xml += rowXml(++sheet.lastRow, cells, kinds, sheet.columnNames, styles)
    sheetXml(sheet.ws).write(xml)
  }
  sheet.ws.autoFilter = {
    from: { row: sheet.headerRow, column: 1 },
    to: { row: tableEnd, column: sheet.spec.columns.length },
  }
  sheet.ws.commit()
  sheet.committed = true
}

/**
 * Lets the zip and the file catch up before the next chunk is accepted: without this, a fast renderer
 * would pile XML and compressed output up in memory faster than deflate and the disk take it. (Reading
 * only `writableNeedDrain`, undefined on readable-stream 2, it never waited: a whole sheet's XML piled
 * up, and deflate ran mostly after the last chunk, in `finish`, instead of alongside the rows.)
 */
async function drained(out: WriteStream, stream: SheetXml): Promise<void> {
  await new Promise<void>((resolve) => setImmediate(resolve))
  await stream.drained()
  if (out.writableNeedDrain) await new Promise<void>((resolve) => out.once('drain', () => resolve()))
}
