import { randomBytes } from 'node:crypto'
import { deflateRawSync } from 'node:zlib'
import ExcelJS from 'exceljs'
import { describe, expect, it } from 'vitest'
import {
  checkImportFileSize,
  checkXlsxArchive,
  IMPORT_LIMITS,
  ImportFileError,
  type ImportLimits,
} from '../../../../src/import/limits'
import { readXlsx } from '../../../../src/import/xlsx'
import { SLICE_BYTES } from '../../../../electron/shared/bounded-inflate'

interface TestEntry {
  name: string
  data: Uint8Array
  /** What the directory claims, when a test wants it to lie. */
  declaredSize?: number
  stored?: boolean
}

/** A minimal zip writer: local headers, data, central directory, end record (CRCs are not checked here). */
function zip(entries: readonly TestEntry[]): Uint8Array {
  const parts: Buffer[] = []
  const directory: Buffer[] = []
  let offset = 0
  for (const e of entries) {
    const name = Buffer.from(e.name)
    const body = e.stored ? Buffer.from(e.data) : deflateRawSync(e.data)
    const size = e.declaredSize ?? e.data.length
    const local = Buffer.alloc(30)
    local.writeUInt32LE(0x04034b50, 0)
    local.writeUInt16LE(e.stored ? 0 : 8, 8)
    local.writeUInt32LE(body.length, 18)
    local.writeUInt32LE(size, 22)
    local.writeUInt16LE(name.length, 26)
    parts.push(local, name, body)
    const central = Buffer.alloc(46)
    central.writeUInt32LE(0x02014b50, 0)
    central.writeUInt16LE(e.stored ? 0 : 8, 10)
    central.writeUInt32LE(body.length, 20)
    central.writeUInt32LE(size, 24)
    central.writeUInt16LE(name.length, 28)
    central.writeUInt32LE(offset, 42)
    directory.push(central, name)
    offset += 30 + name.length + body.length
  }
  const dir = Buffer.concat(directory)
  const end = Buffer.alloc(22)
  end.writeUInt32LE(0x06054b50, 0)
  end.writeUInt16LE(entries.length, 8)
  end.writeUInt16LE(entries.length, 10)
  end.writeUInt32LE(dir.length, 12)
  end.writeUInt32LE(offset, 16)
  return new Uint8Array(Buffer.concat([...parts, dir, end]))
}

async function refusal(p: Promise<unknown>): Promise<ImportFileError> {
  const error = await p.then(
    () => null,
    (e: unknown) => e,
  )
  if (!(error instanceof ImportFileError))
    throw new Error(`expected an ImportFileError, got ${String(error)}`)
  return error
}

const MIB = 1024 * 1024

describe('import file size', () => {
  it('refuses a file over the limit by its size alone, and takes one at the limit', () => {
    expect(() => checkImportFileSize(IMPORT_LIMITS.maxCsvBytes, 'csv')).not.toThrow()
    expect(() => checkImportFileSize(IMPORT_LIMITS.maxCsvBytes + 1, 'csv')).toThrow(ImportFileError)
    expect(() => checkImportFileSize(IMPORT_LIMITS.maxXlsxBytes + 1, 'xlsx')).toThrow(/file_too_large/)
    try {
      checkImportFileSize(100 * MIB, 'csv')
    } catch (e) {
      expect(e).toMatchObject({ code: 'file_too_large', params: { size: 100, max: 64 } })
    }
  })
})

describe('xlsx archive limits (zip bombs)', () => {
  it('passes a real workbook', async () => {
    const book = new ExcelJS.Workbook()
    book.addWorksheet('a').addRow(['x', 1])
    await expect(checkXlsxArchive(new Uint8Array(await book.xlsx.writeBuffer()))).resolves.toBeUndefined()
  })

  it('refuses too many entries from the directory', async () => {
    const entries = Array.from({ length: IMPORT_LIMITS.maxXlsxEntries + 1 }, (_, i) => ({
      name: `x/${i}.xml`,
      data: new Uint8Array(0),
      stored: true,
    }))
    const error = await refusal(checkXlsxArchive(zip(entries)))
    expect(error).toMatchObject({ code: 'xlsx_too_many_entries', params: { entries: 2_001, max: 2_000 } })
  })

  it('refuses an entry that expands a thousand times (a 50 MB sheet in a 50 KB zip)', async () => {
    const bytes = zip([{ name: 'xl/worksheets/sheet1.xml', data: new Uint8Array(50 * MIB) }])
    expect(bytes.length).toBeLessThan(100_000)
    const error = await refusal(checkXlsxArchive(bytes))
    expect(error.code).toBe('xlsx_ratio')
    expect(error.params['entry']).toBe('xl/worksheets/sheet1.xml')
  })

  it('refuses a directory that lies about sizes, while inflating, before the bomb is out', async () => {
    const bytes = zip([{ name: 'xl/sharedStrings.xml', data: new Uint8Array(200 * MIB), declaredSize: 1000 }])
    const before = process.memoryUsage().arrayBuffers
    let inflated = 0
    let consumed = 0
    const error = await refusal(
      checkXlsxArchive(bytes, IMPORT_LIMITS, (i, c) => {
        inflated = i
        consumed = c
      }),
    )
    expect(error).toMatchObject({
      code: 'xlsx_unreadable',
      params: { reason: 'xl/sharedStrings.xml: size mismatch' },
    })
    // Stopped at the first chunk past the 1,000 bytes declared: one output chunk read, a few slices of the
    // 200 KB of deflate handed to the inflater, nowhere near 200 MB held.
    expect(inflated).toBeLessThanOrEqual(1000 + 64 * 1024)
    expect(consumed).toBeLessThanOrEqual(4 * SLICE_BYTES)
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(64 * MIB)
  })

  it('refuses parts that together expand past the total, even at honest ratios', async () => {
    const limits: ImportLimits = { ...IMPORT_LIMITS, maxXlsxUncompressedBytes: 2 * MIB }
    const entries = [1, 2, 3].map((i) => ({ name: `p${i}.bin`, data: randomBytes(800_000) }))
    const error = await refusal(checkXlsxArchive(zip(entries), limits))
    expect(error).toMatchObject({ code: 'xlsx_too_large_uncompressed', params: { max: 2 } })
    // The same parts, with the directory claiming they are tiny: caught while inflating.
    const lying = entries.map((e) => ({ ...e, declaredSize: 10 }))
    expect((await refusal(checkXlsxArchive(zip(lying), limits))).code).toBe('xlsx_unreadable')
  })

  it('refuses what is not a zip, or a truncated one, with a clear code', async () => {
    expect((await refusal(checkXlsxArchive(new TextEncoder().encode('PK not a zip')))).code).toBe(
      'xlsx_unreadable',
    )
    const book = new ExcelJS.Workbook()
    book.addWorksheet('a').addRow(['x'])
    const whole = new Uint8Array(await book.xlsx.writeBuffer())
    expect((await refusal(checkXlsxArchive(whole.subarray(0, whole.length - 30)))).code).toBe(
      'xlsx_unreadable',
    )
  })

  it('readXlsx refuses a bomb before exceljs opens it', async () => {
    const bytes = zip([{ name: 'xl/worksheets/sheet1.xml', data: new Uint8Array(20 * MIB) }])
    expect((await refusal(readXlsx(bytes))).code).toBe('xlsx_ratio')
  })
})
