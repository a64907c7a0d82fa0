import { mkdtemp, rm } from 'node:fs/promises'
import { createWriteStream } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import ExcelJS from 'exceljs'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  abortZip,
  CELL_TYPE,
  onZipError,
  sheetXml,
  stringTable,
  styleRegistry,
  type StreamingWorkbook,
} from '../../../../../electron/services/workbook/exceljs-adapter'

// The exceljs internals the workbook writer relies on, checked against the installed exceljs: an upgrade
// that moves any of them fails here, not in a month-end export.

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'closebook-exceljs-'))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

function openBook(name: string): { book: StreamingWorkbook; path: string } {
  const path = join(dir, name)
  const book = new ExcelJS.stream.xlsx.WorkbookWriter({
    stream: createWriteStream(path),
    useStyles: true,
    useSharedStrings: false,
  })
  return { book, path }
}

async function readBack(path: string): Promise<ExcelJS.Worksheet> {
  const read = new ExcelJS.Workbook()
  await read.xlsx.readFile(path)
  const sheet = read.worksheets[0]
  if (!sheet) throw new Error('no sheet')
  return sheet
}

describe('exceljs adapter', () => {
  it('reaches the style registry, the shared-string table and the sheet XML stream of a streaming workbook', async () => {
    const { book, path } = openBook('raw.xlsx')
    const ws = book.addWorksheet('S')
    const header = ws.getRow(1)
    header.getCell(1).value = 'Head'
    header.commit()
    const style = styleRegistry(book).addStyleModel({ numFmt: '0.00' }, CELL_TYPE.number)
    expect(style).toBeGreaterThan(0)
    const shared = stringTable(book).add('repeated')
    expect(shared).toBe(0)
    sheetXml(ws).write(
      `<row r="2"><c r="A2" s="${style}"><v>1.5</v></c><c r="B2" t="s"><v>${shared}</v></c></row>`,
    )
    ws.commit()
    await book.commit()

    const sheet = await readBack(path)
    expect(sheet.getCell('A1').value).toBe('Head')
    expect(sheet.getCell('A2').value).toBe(1.5)
    expect(sheet.getCell('A2').numFmt).toBe('0.00')
    expect(sheet.getCell('B2').value).toBe('repeated')
  })

  it('says when the zip behind a sheet is full, and resolves once it has drained', async () => {
    const { book } = openBook('full.xlsx')
    const ws = book.addWorksheet('S')
    ws.getRow(1).getCell(1).value = 'Head'
    ws.getRow(1).commit()
    const xml = sheetXml(ws)
    expect(xml.needsDrain()).toBe(false)
    // No turn of the event loop in between: the zip's input (readable-stream 2, no writableNeedDrain)
    // fills up, and only its internal state says so.
    for (let r = 2; r < 2_000; r++)
      xml.write(`<row r="${r}"><c r="A${r}" t="inlineStr"><is><t>row ${r}</t></is></c></row>`)
    expect(xml.needsDrain()).toBe(true)
    await xml.drained()
    expect(xml.needsDrain()).toBe(false)
    ws.commit()
    await book.commit()
  })

  it('listens for the zip errors and aborts it', () => {
    const { book } = openBook('aborted.xlsx')
    const zip = (
      book as unknown as { zip: { listenerCount(e: string): number; _state?: { aborted?: boolean } } }
    ).zip
    const before = zip.listenerCount('error')
    onZipError(book, () => undefined)
    expect(zip.listenerCount('error')).toBe(before + 1)
    const ws = book.addWorksheet('S')
    ws.getRow(1).getCell(1).value = 'Head'
    ws.getRow(1).commit()
    expect(() => abortZip(book)).not.toThrow()
    expect(zip._state?.aborted).toBe(true)
  })
})
