/**
 * Text files produced by the renderer (backup, CSV), streamed in chunks: begin → append… → finish.
 * Chunks go to a temporary file under `<dataDir>/tmp`; only `finish` hands the whole file to the host's
 * `deliverFile` (save dialog or download). Cancel, failure, or a file left alone for too long: the
 * temporary file is removed and nothing is delivered.
 */
import { randomBytes } from 'node:crypto'
import { open, rm, type FileHandle } from 'node:fs/promises'
import { join } from 'node:path'
import type { DeliveredFile, FileTextEncoding } from '../../shared/contract/files'
import { DesktopApiError } from '../../shared/errors'
import {
  FILE_NAME_REASON,
  fileNameProblem,
  fileNameProblemText,
  type FileExtensions,
} from '../../shared/file-name'
import { encodeShiftJis, NotShiftJisError } from '../../shared/shift-jis'
import { diskError } from './move-into-place'
import { TempFolder } from './temp-folder'

/**
 * The contract's file-name rule, checked again where a name is about to be written, so that a caller
 * inside main cannot skip it: refused names never reach a save dialog or the downloads folder.
 */
export function checkFileName(name: string, extensions?: FileExtensions): void {
  const problem = fileNameProblem(name, extensions)
  if (!problem) return
  const message = fileNameProblemText(problem, extensions)
  throw new DesktopApiError('invalid_argument', `Invalid file name: ${message}.`, {
    fields: [{ path: 'suggestedName', message }],
    reason: FILE_NAME_REASON,
  })
}

/** A `base64` file's chunk that is not whole groups of base64: nothing of it is written. */
class NotBase64Error extends Error {
  constructor() {
    super('a chunk is not base64 in whole four-character groups')
  }
}

const BASE64 = /^[A-Za-z0-9+/]*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/

/** The bytes a chunk stands for in `encoding`; undefined: UTF-8 text, which the file handle encodes. */
function bytesOf(chunk: string, encoding: FileTextEncoding): Uint8Array | undefined {
  if (encoding === 'shift_jis') return encodeShiftJis(chunk)
  if (encoding !== 'base64') return undefined
  // Node's decoder skips what is not base64; a chunk is checked whole first, so nothing is lost silently.
  if (chunk.length % 4 !== 0 || !BASE64.test(chunk)) throw new NotBase64Error()
  return Buffer.from(chunk, 'base64')
}

export type DeliverFile = (tempPath: string, suggestedName: string) => Promise<DeliveredFile>

interface OpenFile {
  path: string
  handle: FileHandle
  suggestedName: string
  encoding: FileTextEncoding
  bytes: number
  lastUsed: number
}

export interface FileWriterOptions {
  dataDir: string
  deliverFile: DeliverFile
  now?: () => number
  /** Files with no call for this long are abandoned and removed. */
  idleMs?: number
  /** Shared with the other writers of the data directory; default: its own `<dataDir>/tmp`. */
  temp?: TempFolder
}

export class FileWriter {
  private readonly files = new Map<string, OpenFile>()
  private readonly now: () => number
  private readonly idleMs: number
  private readonly temp: TempFolder

  constructor(private readonly options: FileWriterOptions) {
    this.now = options.now ?? Date.now
    this.idleMs = options.idleMs ?? 15 * 60_000
    this.temp = options.temp ?? new TempFolder(join(options.dataDir, 'tmp'))
  }

  async begin(suggestedName: string, encoding: FileTextEncoding = 'utf-8'): Promise<string> {
    checkFileName(suggestedName)
    await this.sweep()
    await this.temp.ready()
    const fileId = randomBytes(18).toString('base64url')
    const path = join(this.temp.path, `${fileId}.partial`)
    const handle = await open(path, 'wx', 0o600).catch((e: unknown) =>
      Promise.reject(diskError(e, suggestedName)),
    )
    this.files.set(fileId, { path, handle, suggestedName, encoding, bytes: 0, lastUsed: this.now() })
    return fileId
  }

  private get(fileId: string): OpenFile {
    const file = this.files.get(fileId)
    if (!file)
      throw new DesktopApiError(
        'not_found',
        'This file is no longer being written (finished, cancelled or expired).',
      )
    file.lastUsed = this.now()
    return file
  }

  async append(fileId: string, chunk: string): Promise<number> {
    const file = this.get(fileId)
    let bytes: Uint8Array | undefined
    try {
      bytes = bytesOf(chunk, file.encoding)
    } catch (error) {
      await this.discard(fileId)
      if (error instanceof NotShiftJisError || error instanceof NotBase64Error)
        throw new DesktopApiError('invalid_argument', `${file.suggestedName}: ${error.message}.`)
      throw error
    }
    try {
      const { bytesWritten } =
        bytes === undefined ? await file.handle.write(chunk, null, 'utf8') : await file.handle.write(bytes)
      file.bytes += bytesWritten
      return file.bytes
    } catch (error) {
      await this.discard(fileId)
      throw diskError(error, file.suggestedName)
    }
  }

  async finish(fileId: string): Promise<DeliveredFile> {
    const file = this.get(fileId)
    this.files.delete(fileId)
    try {
      await file.handle.sync()
      await file.handle.close()
    } catch (error) {
      await rm(file.path, { force: true })
      throw diskError(error, file.suggestedName)
    }
    try {
      return await this.options.deliverFile(file.path, file.suggestedName)
    } finally {
      await rm(file.path, { force: true }) // delivered files were moved; anything left is ours to remove
    }
  }

  async cancel(fileId: string): Promise<boolean> {
    if (!this.files.has(fileId)) return false
    await this.discard(fileId)
    return true
  }

  private async discard(fileId: string): Promise<void> {
    const file = this.files.get(fileId)
    if (!file) return
    this.files.delete(fileId)
    await file.handle.close().catch(() => undefined)
    await rm(file.path, { force: true })
  }

  /** Removes files abandoned by a renderer that went away mid-write. */
  async sweep(): Promise<void> {
    const cutoff = this.now() - this.idleMs
    for (const [id, file] of [...this.files]) if (file.lastUsed < cutoff) await this.discard(id)
  }

  async dispose(): Promise<void> {
    for (const id of [...this.files.keys()]) await this.discard(id)
  }
}
