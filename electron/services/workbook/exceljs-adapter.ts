/**
 * Every use of exceljs internals, in one place. The streaming writer's style registry, shared-string
 * table, per-sheet XML stream and zip are not part of exceljs's typed API: they are read here, and only
 * here, so an exceljs upgrade is checked against this file and its test
 * (tests/unit/electron/services/workbook/exceljs-adapter.test.ts). exceljs is pinned exactly in
 * package.json for the same reason.
 */
import type ExcelJS from 'exceljs'
import type { Style, Worksheet } from 'exceljs'

export type StreamingWorkbook = ExcelJS.stream.xlsx.WorkbookWriter

/** exceljs's style registry: a style object in, its index in styles.xml out. */
export interface StyleRegistry {
  addStyleModel(model: Partial<Style>, cellType?: number): number
}

/** exceljs's ValueType numbers, as its style registry expects them. */
export const CELL_TYPE = { number: 2, string: 3, date: 4 } as const

/** The workbook's shared-string table as exceljs keeps it: a text in, its index out. */
export interface StringTable {
  add(value: string): number
}

/** The streaming workbook's style registry (written as styles.xml at commit). */
export const styleRegistry = (book: StreamingWorkbook): StyleRegistry =>
  (book as unknown as { styles: StyleRegistry }).styles

/** The streaming workbook's shared-string table: written as sharedStrings.xml at commit when not empty,
 * whether or not exceljs's own cells use it (ours do not: `useSharedStrings: false` keeps them inline). */
export const stringTable = (book: StreamingWorkbook): StringTable =>
  (book as unknown as { sharedStrings: StringTable }).sharedStrings

/** The streaming writer's zip, which exceljs does not type: aborting it stops all pending output. */
type WithZip = { zip?: { abort(): unknown; on(event: 'error', listener: (e: unknown) => void): unknown } }

export function onZipError(book: StreamingWorkbook, listener: (e: unknown) => void): void {
  ;(book as unknown as WithZip).zip?.on('error', listener)
}

/** Stops the zip and all its pending output; throws if it has already finished or failed. */
export function abortZip(book: StreamingWorkbook): void {
  ;(book as unknown as WithZip).zip?.abort()
}

interface SheetStream {
  write(xml: string): unknown
  pipes?: SheetPipe[]
}
/** What the sheet's XML is piped into: archiver's PassThrough, from readable-stream 2, which predates
 * `writableNeedDrain` and has only its internal state to say that it is full. */
interface SheetPipe {
  writableNeedDrain?: boolean
  _writableState?: { needDrain?: boolean }
  once(event: 'drain', listener: () => void): unknown
}

/** The sheet's own XML stream (open at <sheetData> once a row has been committed), which pipes into the
 * zip. Raw row XML written here lands in the sheet as it is. */
export interface SheetXml {
  write(xml: string): void
  /** Whether anything the sheet's XML is piped into is full and wants a 'drain' before more is written. */
  needsDrain(): boolean
  /** Resolves once every full pipe has drained. */
  drained(): Promise<void>
}

const pipeNeedsDrain = (pipe: SheetPipe): boolean =>
  pipe.writableNeedDrain ?? pipe._writableState?.needDrain ?? false

export function sheetXml(ws: Worksheet): SheetXml {
  const stream = (ws as unknown as { stream: SheetStream }).stream
  return {
    write: (xml) => {
      stream.write(xml)
    },
    needsDrain: () => (stream.pipes ?? []).some(pipeNeedsDrain),
    drained: async () => {
      for (const pipe of stream.pipes ?? [])
        if (pipeNeedsDrain(pipe)) await new Promise<void>((resolve) => pipe.once('drain', () => resolve()))
    },
  }
}
