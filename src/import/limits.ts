/**
 * What an imported file may cost before it is read: its size, and for Excel files (zip archives) the
 * number of entries, what they expand to and how far each expands. A 700 KB zip bomb used to take the tab
 * to 2 GB before exceljs gave up; now it is refused from its directory, and an entry whose directory lies
 * about its size is refused while it is being inflated, a slice at a time, as soon as the output passes what
 * it declared (bounded-inflate.ts): memory never holds more than a few slices' output, whatever it claims.
 */
import { boundedInflate, InflateLimitError, type InflateOptions } from '../../electron/shared/bounded-inflate'

export const IMPORT_LIMITS = {
  /** CSV: 64 MiB is several times the largest order export or statement the app is meant for. */
  maxCsvBytes: 64 * 1024 * 1024,
  /** Excel files are compressed: 32 MiB of xlsx is hundreds of thousands of rows. */
  maxXlsxBytes: 32 * 1024 * 1024,
  /** A workbook has a few dozen parts; thousands is not a spreadsheet. */
  maxXlsxEntries: 2_000,
  /** What all parts expand to together: exceljs holds the workbook's XML in memory several times over. */
  maxXlsxUncompressedBytes: 128 * 1024 * 1024,
  /** Sheet XML compresses 5–30 times; a part expanding more than this (past 1 MiB) is a bomb. */
  maxXlsxRatio: 100,
  ratioAppliesAboveBytes: 1024 * 1024,
} as const

export type ImportLimits = { -readonly [K in keyof typeof IMPORT_LIMITS]: number }

export type ImportFileErrorCode =
  | 'file_too_large'
  | 'xlsx_too_many_entries'
  | 'xlsx_too_large_uncompressed'
  | 'xlsx_ratio'
  | 'xlsx_unreadable'
  | 'unknown_encoding'

/** A file refused before (or while) reading it: `code` picks the message, `params` fill it in. */
export class ImportFileError extends Error {
  constructor(
    readonly code: ImportFileErrorCode,
    readonly params: Readonly<Record<string, string | number>> = {},
  ) {
    super(`Import refused (${code}): ${JSON.stringify(params)}`)
    this.name = 'ImportFileError'
  }
}

const MIB = 1024 * 1024
const mib = (bytes: number): number => Math.ceil((bytes / MIB) * 10) / 10

/** Refuses a file by its size alone, before any byte is read. */
export function checkImportFileSize(
  size: number,
  kind: 'csv' | 'xlsx',
  limits: ImportLimits = IMPORT_LIMITS,
): void {
  const max = kind === 'xlsx' ? limits.maxXlsxBytes : limits.maxCsvBytes
  if (size > max) throw new ImportFileError('file_too_large', { size: mib(size), max: mib(max) })
}

interface ZipEntry {
  name: string
  method: number
  compressedSize: number
  uncompressedSize: number
  localHeaderOffset: number
}

const u16 = (v: DataView, at: number): number => v.getUint16(at, true)
const u32 = (v: DataView, at: number): number => v.getUint32(at, true)

/** The central directory's entries, from the end-of-directory record (the zip's own table of contents). */
function centralDirectory(bytes: Uint8Array, limits: ImportLimits): ZipEntry[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const unreadable = (reason: string): ImportFileError => new ImportFileError('xlsx_unreadable', { reason })
  let eocd = -1
  for (let at = bytes.length - 22; at >= Math.max(0, bytes.length - 22 - 0xffff); at--) {
    if (u32(view, at) === 0x06054b50) {
      eocd = at
      break
    }
  }
  if (eocd < 0) throw unreadable('no zip directory')
  const count = u16(view, eocd + 10)
  const dirSize = u32(view, eocd + 12)
  const dirOffset = u32(view, eocd + 16)
  if (count === 0xffff || dirOffset === 0xffffffff) throw unreadable('zip64')
  if (count > limits.maxXlsxEntries)
    throw new ImportFileError('xlsx_too_many_entries', { entries: count, max: limits.maxXlsxEntries })
  if (dirOffset + dirSize > eocd) throw unreadable('directory out of bounds')
  const entries: ZipEntry[] = []
  let at = dirOffset
  for (let i = 0; i < count; i++) {
    if (at + 46 > eocd || u32(view, at) !== 0x02014b50) throw unreadable('bad directory entry')
    const nameLength = u16(view, at + 28)
    entries.push({
      method: u16(view, at + 10),
      compressedSize: u32(view, at + 20),
      uncompressedSize: u32(view, at + 24),
      name: new TextDecoder().decode(bytes.subarray(at + 46, at + 46 + nameLength)),
      localHeaderOffset: u32(view, at + 42),
    })
    at += 46 + nameLength + u16(view, at + 30) + u16(view, at + 32)
  }
  return entries
}

function checkExpansion(
  entry: ZipEntry,
  expanded: number,
  total: number,
  limits: ImportLimits,
): ImportFileError | null {
  if (total > limits.maxXlsxUncompressedBytes)
    return new ImportFileError('xlsx_too_large_uncompressed', {
      size: mib(total),
      max: mib(limits.maxXlsxUncompressedBytes),
    })
  if (
    expanded > limits.ratioAppliesAboveBytes &&
    expanded > Math.max(1, entry.compressedSize) * limits.maxXlsxRatio
  )
    return new ImportFileError('xlsx_ratio', {
      entry: entry.name.slice(0, 80),
      ratio: Math.round(expanded / Math.max(1, entry.compressedSize)),
      max: limits.maxXlsxRatio,
    })
  return null
}

/** Inflates one entry a chunk at a time, counting; stops at the first chunk past a limit. */
async function inflatedSize(
  bytes: Uint8Array,
  entry: ZipEntry,
  totalBefore: number,
  limits: ImportLimits,
  onChunk: InflateOptions['onChunk'],
): Promise<number> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const at = entry.localHeaderOffset
  if (at + 30 > bytes.length || u32(view, at) !== 0x04034b50)
    throw new ImportFileError('xlsx_unreadable', { reason: 'bad local header' })
  const start = at + 30 + u16(view, at + 26) + u16(view, at + 28)
  const end = start + entry.compressedSize
  if (end > bytes.length) throw new ImportFileError('xlsx_unreadable', { reason: 'entry out of bounds' })
  if (entry.method === 0) return entry.compressedSize
  if (entry.method !== 8)
    throw new ImportFileError('xlsx_unreadable', { reason: `compression method ${entry.method}` })
  const compressed = bytes.slice(start, end)
  // Never more than the entry declared (a directory that lies is refused as soon as the output passes
  // it), nor than what the limits leave: the inflater stops there, a slice at a time (bounded-inflate.ts).
  const maxBytes = Math.min(
    entry.uncompressedSize,
    limits.maxXlsxUncompressedBytes - totalBefore,
    Math.max(limits.ratioAppliesAboveBytes, Math.max(1, entry.compressedSize) * limits.maxXlsxRatio),
  )
  const stream = boundedInflate(
    new ReadableStream<Uint8Array<ArrayBuffer>>({
      start(controller) {
        controller.enqueue(compressed)
        controller.close()
      },
    }),
    'deflate-raw',
    { maxBytes, ...(onChunk ? { onChunk } : {}) },
  )
  const reader = stream.getReader()
  let expanded = 0
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      expanded += value.byteLength
    }
  } catch (error) {
    await reader.cancel().catch(() => undefined)
    if (!(error instanceof InflateLimitError))
      throw new ImportFileError('xlsx_unreadable', { reason: `${entry.name.slice(0, 80)}: corrupt data` })
    // Which limit: the limits' own errors first, then the directory's lie.
    throw (
      checkExpansion(entry, error.inflated, totalBefore + error.inflated, limits) ??
      new ImportFileError('xlsx_unreadable', { reason: `${entry.name.slice(0, 80)}: size mismatch` })
    )
  }
  return expanded
}

/**
 * Checks an xlsx (zip) before exceljs opens it: entry count and declared sizes from the directory first
 * (cheap), then every entry really inflated and counted, so a directory that lies does not help.
 */
export async function checkXlsxArchive(
  bytes: Uint8Array,
  limits: ImportLimits = IMPORT_LIMITS,
  /** Sees each entry's running counts (inflated, compressed bytes handed over): tests measure with it. */
  onChunk?: InflateOptions['onChunk'],
): Promise<void> {
  const entries = centralDirectory(bytes, limits)
  let declared = 0
  for (const entry of entries) {
    declared += entry.uncompressedSize
    const problem = checkExpansion(entry, entry.uncompressedSize, declared, limits)
    if (problem) throw problem
  }
  let total = 0
  for (const entry of entries) total += await inflatedSize(bytes, entry, total, limits, onChunk)
}
