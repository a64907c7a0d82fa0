/**
 * Writing a file the renderer produced (backup, CSV) through DesktopApi: streamed in chunks, delivered
 * whole at the end (save dialog in the desktop app, a download in the web host), nothing left on cancel.
 */
import type { DeliveredFile, FileTextEncoding } from '../../electron/shared/contract/files'
import { MAX_FILE_CHUNK_CHARS } from '../../electron/shared/contract/files'
import { desktopApi } from './index'

export type FileMediaType = 'application/json' | 'text/csv'

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
  try {
    for await (const chunk of chunks) {
      options.signal?.throwIfAborted()
      for (let at = 0; at < chunk.length; at += MAX_FILE_CHUNK_CHARS) {
        const { bytesWritten } = await api.files.append({
          fileId,
          chunk: chunk.slice(at, at + MAX_FILE_CHUNK_CHARS),
        })
        options.onProgress?.(bytesWritten)
      }
    }
    options.signal?.throwIfAborted()
    const delivered = await api.files.finish({ fileId })
    if (delivered.savedTo === 'download') startDownload(delivered.downloadUrl, delivered.fileName)
    return delivered
  } catch (error) {
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
