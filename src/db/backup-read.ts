/**
 * Reading a backup file: its text (gunzipped within a limit when it is gzip), its lines, and the items of
 * a version-2 file (header, sections, rows, end line) or of a version-1 JSON document, each row checked
 * against its table's schema (backup-rows.ts). Nothing here keeps more than one line, or one version-1
 * document.
 */
import { z } from 'zod'
import { boundedInflate, InflateLimitError } from '../../electron/shared/bounded-inflate'
import { backupSignatureSchema, type BackupSignature } from '../../electron/shared/contract/backup'
import { BACKUP_FORMAT, type BackupTableName } from './backup'
import {
  BackupError,
  LEGACY_MAX_CHARS,
  MAX_LINE_CHARS,
  maxInflatedBytes,
  STREAM_BACKUP_VERSION,
  STREAM_TABLE_ORDER,
} from './backup-format'
import { PAYOUT_BACKUP_TABLES } from './backup-payouts'
import { BackupDigest } from './backup-digest'
import { LineDigest } from './backup-line-digest'
import type { RowItem } from './backup-rows'

export type Item =
  | { kind: 'header'; exportedAt: string; version: number }
  | RowItem
  /** Last: the digest of the text before the signature line, and the signature, if the file has one. */
  | { kind: 'trailer'; digest: string; signature: BackupSignature | null }

const isGzip = async (file: Blob): Promise<boolean> => {
  const head = new Uint8Array(await file.slice(0, 2).arrayBuffer())
  return head[0] === 0x1f && head[1] === 0x8b
}

/** How a read goes: Cancel, the file's bytes as they are read, and what a gzip file may inflate to. */
export interface ReadOptions {
  signal?: AbortSignal
  onBytes?: (bytes: number) => void
  /** Tests lower them; the app uses BACKUP_INFLATE_LIMITS. */
  inflateLimits?: { floorBytes: number; ratio: number }
}

/** The text's bytes (gunzipped), each chunk handed to `tap` before it is decoded. */
type TextOptions = ReadOptions & { tap?: (bytes: Uint8Array) => void }

/**
 * The file's text as a stream (gunzipped when it is gzip, stopping as soon as the output passes
 * maxInflatedBytes), counting the file's bytes as they are read.
 */
async function textStream(file: Blob, options: TextOptions = {}): Promise<ReadableStream<string>> {
  let read = 0
  let bytes: ReadableStream<Uint8Array<ArrayBuffer>> = file.stream().pipeThrough(
    new TransformStream<Uint8Array<ArrayBuffer>, Uint8Array<ArrayBuffer>>({
      transform(chunk, controller) {
        read += chunk.byteLength
        options.onBytes?.(read)
        controller.enqueue(chunk)
      },
    }),
  )
  if (await isGzip(file))
    bytes = boundedInflate(bytes, 'gzip', { maxBytes: maxInflatedBytes(file.size, options.inflateLimits) })
  const tap = options.tap
  if (tap)
    bytes = bytes.pipeThrough(
      new TransformStream<Uint8Array<ArrayBuffer>, Uint8Array<ArrayBuffer>>({
        transform(chunk, controller) {
          tap(chunk)
          controller.enqueue(chunk)
        },
      }),
    )
  return bytes.pipeThrough(new TextDecoderStream('utf-8', { fatal: true }))
}

const MIB = 1024 * 1024

/** A failure while reading the text, as the BackupError that names it. */
function readError(error: unknown): unknown {
  if (error instanceof InflateLimitError)
    return new BackupError('inflated_too_large', { max: Math.round(error.limit / MIB) })
  if (error instanceof TypeError) return new BackupError('not_a_backup', { reason: 'not UTF-8 text' })
  return error
}

/** Lines of a text stream, never more than MAX_LINE_CHARS held. */
async function* linesOf(stream: ReadableStream<string>, signal?: AbortSignal): AsyncGenerator<string> {
  const reader = stream.getReader()
  let rest = ''
  try {
    for (;;) {
      signal?.throwIfAborted()
      const { done, value } = await reader.read()
      if (done) break
      // Only the new text can hold the next line break: a long line is not searched again per chunk.
      let at = value.indexOf('\n')
      if (at >= 0) at += rest.length
      rest += value
      let from = 0
      while (at >= 0) {
        yield rest.slice(from, at)
        from = at + 1
        at = rest.indexOf('\n', from)
      }
      rest = rest.slice(from)
      if (rest.length > MAX_LINE_CHARS) throw new BackupError('line_too_long', { chars: MAX_LINE_CHARS })
    }
    if (rest.trim() !== '') yield rest
  } catch (error) {
    throw readError(error)
  } finally {
    await reader.cancel().catch(() => undefined)
  }
}

/** The first line, if it comes within the first MiB of text (a version-1 file has no line break). */
async function firstLine(file: Blob, options: ReadOptions): Promise<string | null> {
  const reader = (await textStream(file, { ...options, onBytes: undefined })).getReader()
  let text = ''
  try {
    while (text.length < MIB) {
      const { done, value } = await reader.read()
      if (done) return text
      text += value
      const at = text.indexOf('\n')
      if (at >= 0) return text.slice(0, at)
    }
    return null
  } catch (error) {
    const refused = readError(error)
    throw refused instanceof BackupError
      ? refused
      : new BackupError('not_a_backup', { reason: 'not UTF-8 text' })
  } finally {
    await reader.cancel().catch(() => undefined)
  }
}

function parseLine(text: string, line: number): unknown {
  try {
    return JSON.parse(text) as unknown
  } catch {
    throw new BackupError('invalid_line', { line })
  }
}

const headerSchema = z.object({
  format: z.literal(BACKUP_FORMAT),
  version: z.number(),
  exportedAt: z.string(),
})
const sectionSchema = z.strictObject({
  table: z.enum(STREAM_TABLE_ORDER),
  rows: z.number().int().nonnegative(),
})
const signatureLineSchema = z.strictObject({ signature: backupSignatureSchema })
const endSchema = z.strictObject({ end: z.literal(true), rows: z.number().int().nonnegative() })

/** The items of a version-2 file, checking sections, their row counts and the end line. */
async function* streamItems(file: Blob, options: ReadOptions): AsyncGenerator<Item> {
  let line = 0
  let section: { table: BackupTableName; rows: number; seen: number } | null = null
  let order = 0
  let total = 0
  let ended = false
  let signature: BackupSignature | null = null
  // The digest of the lines before the signature, from the bytes as read: no line is encoded again.
  const digest = new LineDigest()
  const closeSection = (): void => {
    if (section && section.seen !== section.rows)
      throw new BackupError('truncated', {
        table: section.table,
        expected: section.rows,
        found: section.seen,
      })
  }
  const stream = await textStream(file, { ...options, tap: (bytes) => digest.push(bytes) })
  for await (const text of linesOf(stream, options.signal)) {
    line++
    // After the end line only a signature may come, once; it is not part of what it signs.
    if (ended && text.trim() !== '') {
      const signed = signatureLineSchema.safeParse(parseLine(text, line))
      if (signature !== null || !signed.success) throw new BackupError('invalid_line', { line })
      signature = signed.data.signature
      digest.close()
      continue
    }
    if (signature === null) {
      digest.take(line)
      if (digest.ready) await digest.flush()
    }
    if (text.trim() === '') continue
    const value = parseLine(text, line)
    if (line === 1) {
      const head = headerSchema.safeParse(value)
      if (!head.success) throw new BackupError('not_a_backup', { reason: 'no Closebook header' })
      if (head.data.version !== STREAM_BACKUP_VERSION)
        throw new BackupError('unsupported_version', { version: head.data.version })
      yield { kind: 'header', exportedAt: head.data.exportedAt, version: head.data.version }
      continue
    }
    if (typeof value === 'object' && value !== null && 'table' in value) {
      const next = sectionSchema.safeParse(value)
      if (!next.success) throw new BackupError('invalid_line', { line })
      closeSection()
      const at = STREAM_TABLE_ORDER.indexOf(next.data.table)
      if (at < order) throw new BackupError('invalid_line', { line })
      order = at + 1
      section = { table: next.data.table, rows: next.data.rows, seen: 0 }
      continue
    }
    if (typeof value === 'object' && value !== null && 'end' in value) {
      const end = endSchema.safeParse(value)
      closeSection()
      if (!end.success || end.data.rows !== total) throw new BackupError('truncated', { table: '', line })
      ended = true
      continue
    }
    if (!section) throw new BackupError('invalid_line', { line })
    section.seen++
    total++
    if (section.seen > section.rows)
      throw new BackupError('truncated', {
        table: section.table,
        expected: section.rows,
        found: section.seen,
      })
    yield { kind: 'row', table: section.table, value, line }
  }
  if (line === 0) throw new BackupError('not_a_backup', { reason: 'empty file' })
  if (!ended) {
    closeSection()
    throw new BackupError('truncated', { table: section?.table ?? '', line })
  }
  yield { kind: 'trailer', digest: await digest.hex(), signature }
}

const LATER_TABLES: ReadonlySet<BackupTableName> = new Set([
  'imports',
  'importedRows',
  ...PAYOUT_BACKUP_TABLES,
])

/** A version-1 file: one JSON document, read whole (they were only ever made for small caches). */
async function* legacyItems(file: Blob, options: ReadOptions): AsyncGenerator<Item> {
  let text = ''
  const digest = new BackupDigest()
  for await (const part of linesOfWhole(
    await textStream(file, { ...options, onBytes: undefined }),
    options.signal,
  )) {
    await digest.updateText(part)
    text += part
    if (text.length > LEGACY_MAX_CHARS) throw new BackupError('legacy_too_large', { max: LEGACY_MAX_CHARS })
  }
  let doc: unknown
  try {
    doc = JSON.parse(text) as unknown
  } catch {
    throw new BackupError('not_a_backup', { reason: 'not JSON' })
  }
  text = ''
  const head = headerSchema.safeParse(doc)
  if (!head.success) throw new BackupError('not_a_backup', { reason: 'no Closebook header' })
  if (head.data.version !== 1) throw new BackupError('unsupported_version', { version: head.data.version })
  const tables = (doc as { tables?: unknown }).tables
  if (typeof tables !== 'object' || tables === null)
    throw new BackupError('invalid_row', { table: 'tables', line: 1, issue: 'missing' })
  yield { kind: 'header', exportedAt: head.data.exportedAt, version: 1 }
  for (const table of STREAM_TABLE_ORDER) {
    const rows = (tables as Record<string, unknown>)[table]
    // Imports and payouts came later: older backups have none.
    if (rows === undefined && LATER_TABLES.has(table)) continue
    if (!Array.isArray(rows))
      throw new BackupError('invalid_row', { table, line: 1, issue: 'expected a list' })
    for (const [i, value] of rows.entries()) yield { kind: 'row', table, value, line: i + 1 }
  }
  // Version-1 files were never signed.
  yield { kind: 'trailer', digest: await digest.hex(), signature: null }
}

async function* linesOfWhole(stream: ReadableStream<string>, signal?: AbortSignal): AsyncGenerator<string> {
  const reader = stream.getReader()
  try {
    for (;;) {
      signal?.throwIfAborted()
      const { done, value } = await reader.read()
      if (done) return
      yield value
    }
  } catch (error) {
    throw readError(error)
  } finally {
    await reader.cancel().catch(() => undefined)
  }
}

export async function itemsOf(file: Blob, options: ReadOptions): Promise<AsyncGenerator<Item>> {
  const first = await firstLine(file, options)
  if (first !== null && first.trim() !== '') {
    let head: unknown
    try {
      head = JSON.parse(first) as unknown
    } catch {
      head = null
    }
    const parsed = headerSchema.safeParse(head)
    if (parsed.success && parsed.data.version !== 1) return streamItems(file, options)
  }
  if (file.size > LEGACY_MAX_CHARS * 4) throw new BackupError('legacy_too_large', { max: LEGACY_MAX_CHARS })
  return legacyItems(file, options)
}

export { chargeRowSchema, checkedRow, historyRowSchema, rowOf, type Row, type RowItem } from './backup-rows'
