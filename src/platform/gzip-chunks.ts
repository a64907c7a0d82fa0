/**
 * Text chunks → the gzip of their UTF-8 bytes, as base64 text chunks for the host's `base64` file
 * encoding. Each chunk is whole base64 quads (the host decodes every chunk alone) of at most `chunkBytes`
 * compressed bytes; only the last may end in padding. The source is read only as the compressor asks for
 * more, so memory holds a few chunks whatever the file's size; its error (a cancel, a backup refused
 * midway) is thrown here unchanged, and stopping early stops the source.
 */
const DEFAULT_CHUNK_BYTES = 3 * 256 * 1024

/** Base64 of `bytes`: the engine's own where it has one, else through `btoa` in slices. */
export function base64Of(bytes: Uint8Array): string {
  const own = (bytes as Uint8Array & { toBase64?: () => string }).toBase64
  if (typeof own === 'function') return own.call(bytes)
  let binary = ''
  for (let at = 0; at < bytes.length; at += 0x8000)
    binary += String.fromCharCode(...bytes.subarray(at, at + 0x8000))
  return btoa(binary)
}

type TextChunks = AsyncIterator<string> | Iterator<string>

/** The text chunks as a byte stream that reads the next chunk only when asked. */
function utf8Stream(chunks: TextChunks): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder()
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        for (;;) {
          const next = await chunks.next()
          if (next.done) return controller.close()
          if (next.value.length === 0) continue
          return controller.enqueue(encoder.encode(next.value))
        }
      },
      async cancel() {
        await chunks.return?.()
      },
    },
    { highWaterMark: 0 },
  )
}

export async function* gzipBase64Chunks(
  source: AsyncIterable<string> | Iterable<string>,
  chunkBytes: number = DEFAULT_CHUNK_BYTES,
): AsyncGenerator<string> {
  // A multiple of 3 bytes is whole quads of base64.
  const size = Math.max(3, chunkBytes - (chunkBytes % 3))
  const chunks: TextChunks =
    Symbol.asyncIterator in source ? source[Symbol.asyncIterator]() : source[Symbol.iterator]()
  const reader = utf8Stream(chunks)
    .pipeThrough(new CompressionStream('gzip') as unknown as TransformStream<Uint8Array, Uint8Array>)
    .getReader()
  const buffer = new Uint8Array(size)
  let filled = 0
  let finished = false
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      for (let at = 0; at < value.length;) {
        const take = Math.min(size - filled, value.length - at)
        buffer.set(value.subarray(at, at + take), filled)
        filled += take
        at += take
        if (filled === size) {
          yield base64Of(buffer)
          filled = 0
        }
      }
    }
    finished = true
    if (filled > 0) yield base64Of(buffer.subarray(0, filled))
  } finally {
    // Stopped early (a failed write, a cancel): the compressor and the source are stopped too.
    if (!finished) {
      await reader.cancel().catch(() => undefined)
      await chunks.return?.()
    }
    reader.releaseLock()
  }
}
