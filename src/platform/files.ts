/**
 * Writing a file the renderer produced (backup, CSV) through DesktopApi: streamed in chunks, delivered
 * whole at the end (save dialog in the desktop app, a download in the web host), nothing left on cancel.
 */
import type { DeliveredFile, FileTextEncoding } from '../../electron/shared/contract/files'
import { MAX_FILE_CHUNK_CHARS } from '../../electron/shared/contract/files'
import { desktopApi } from './index'

export type FileMediaType = 'application/json' | 'text/csv'

/**
 * Writes `chunks` through the host, in order. One append is in flight while the next chunk is produced:
 * the host writes chunk n as the renderer reads and formats chunk n + 1, and never more than one chunk
 * waits for it (memory holds two chunks at most). A failed append stops the file: it is cancelled, and the
 * error thrown, before any later chunk is sent.
 */
export async function writeFileThroughHost(
  suggestedName: string,
  mediaType: FileMediaType,
  chunks: AsyncIterable<string> | Iterable<string>,
  options: { signal?: AbortSignal; onProgress?: (bytes: number) => void; encoding?: FileTextEncoding } = {},
): Promise<DeliveredFile> {
  const api = desktopApi()
  const { fileId } = await api.files.begin(
    options.encoding === undefined
      ? { suggestedName, mediaType }
      : { suggestedName, mediaType, encoding: options.encoding },
  )
  // The append under way, if any; its failure is thrown where it is awaited (before the next append).
  let writing: Promise<void> = Promise.resolve()
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
    for await (const chunk of chunks) {
      options.signal?.throwIfAborted()
      await writing
      writing = append(chunk)
      writing.catch(() => undefined) // awaited above or below; not an unhandled rejection meanwhile
    }
    await writing
    options.signal?.throwIfAborted()
    const delivered = await api.files.finish({ fileId })
    if (delivered.savedTo === 'download') startDownload(delivered.downloadUrl, delivered.fileName)
    return delivered
  } catch (error) {
    // No append is left running when the file is cancelled: the host never gets a chunk after cancel.
    await writing.catch(() => undefined)
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
