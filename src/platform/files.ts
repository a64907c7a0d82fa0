/**
 * Writing a file the renderer produced (backup, CSV) through DesktopApi: streamed in chunks, delivered
 * whole at the end (save dialog in the desktop app, a download in the web host), nothing left on cancel.
 */
import type { DeliveredFile, FileTextEncoding } from '../../electron/shared/contract/files'
import { MAX_FILE_CHUNK_CHARS } from '../../electron/shared/contract/files'
import { gzipBase64Chunks } from './gzip-chunks'
import { desktopApi } from './index'

/** `application/gzip`: the chunks are text, written gzip-compressed (sent to the host as base64). */
export type FileMediaType = 'application/json' | 'text/csv' | 'application/gzip'

/**
 * One write to the host in flight while the caller prepares the next, so the two work side by side and
 * chunks still arrive in order. `idle` waits for the write under way and throws its failure; `start`
 * begins the next (after `idle`); `settle` waits without throwing, before a cancel, so the host gets no
 * chunk after it.
 */
export class HostWriteInFlight {
  #current: Promise<void> = Promise.resolve()

  idle(): Promise<void> {
    return this.#current
  }

  start(write: () => Promise<void>): void {
    this.#current = write()
    this.#current.catch(() => undefined) // thrown by idle(); not an unhandled rejection meanwhile
  }

  settle(): Promise<void> {
    return this.#current.catch(() => undefined)
  }
}

/**
 * Writes `chunks` through the host, in order. One append is in flight while the next chunk is produced:
 * the host writes chunk n as the renderer reads and formats chunk n + 1, and never more than one chunk
 * waits for it (memory holds two chunks at most). A failed append stops the file: it is cancelled, and the
 * error thrown, before any later chunk is sent. An `application/gzip` file's text is compressed here and
 * sent as base64 (gzip-chunks.ts): the host receives and writes a fraction of the text's bytes.
 */
export async function writeFileThroughHost(
  suggestedName: string,
  mediaType: FileMediaType,
  chunks: AsyncIterable<string> | Iterable<string>,
  options: { signal?: AbortSignal; onProgress?: (bytes: number) => void; encoding?: FileTextEncoding } = {},
): Promise<DeliveredFile> {
  const api = desktopApi()
  const gzip = mediaType === 'application/gzip'
  const encoding = gzip ? 'base64' : options.encoding
  const { fileId } = await api.files.begin(
    encoding === undefined ? { suggestedName, mediaType } : { suggestedName, mediaType, encoding },
  )
  const sent = gzip ? gzipBase64Chunks(chunks) : chunks
  const writing = new HostWriteInFlight()
  const append = async (chunk: string): Promise<void> => {
    for (let at = 0; at < chunk.length; at += MAX_FILE_CHUNK_CHARS) {
      const { bytesWritten } = await api.files.append({
        fileId,
        chunk: chunk.slice(at, at + MAX_FILE_CHUNK_CHARS),
      })
      options.onProgress?.(bytesWritten)
    }
  }
  try {
    for await (const chunk of sent) {
      options.signal?.throwIfAborted()
      await writing.idle()
      writing.start(() => append(chunk))
    }
    await writing.idle()
    options.signal?.throwIfAborted()
    const delivered = await api.files.finish({ fileId })
    if (delivered.savedTo === 'download') startDownload(delivered.downloadUrl, delivered.fileName)
    return delivered
  } catch (error) {
    // No append is left running when the file is cancelled: the host never gets a chunk after cancel.
    await writing.settle()
    await api.files.cancel({ fileId }).catch(() => undefined)
    throw error
  }
}

/** The web host's one-time URL, taken by the browser as a download. */
export function startDownload(url: string, fileName: string): void {
  const link = document.createElement('a')
  link.href = url
  link.download = fileName
  link.rel = 'noopener'
  document.body.append(link)
  link.click()
  link.remove()
}
