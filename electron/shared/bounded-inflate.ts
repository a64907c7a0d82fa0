/**
 * Decompression that cannot run away with memory. A DecompressionStream inflates each chunk it is given
 * in one go and queues all of it: one 1 MiB chunk of a deflate bomb is a gigabyte in memory before the
 * reader sees a byte. Here the compressed input goes in slices of SLICE_BYTES, the next slice only once
 * the reader has taken the output of the one before, and the output is counted as it is read: the stream
 * errors with InflateLimitError as soon as the count passes the limit. So only the output of the few
 * slices in flight (each ≤ SLICE_BYTES × 1032, deflate's largest ratio) is ever held ahead of the reader,
 * and what was read before the refusal is at most the limit plus one output chunk. Pure TS: browser and
 * Node alike.
 */

/** Compressed bytes handed to the inflater at a time. */
export const SLICE_BYTES = 4 * 1024

/** The output passed its limit: `inflated` bytes read when refused, `consumed` compressed bytes handed to the inflater. */
export class InflateLimitError extends Error {
  constructor(
    readonly inflated: number,
    readonly limit: number,
    readonly consumed: number,
  ) {
    super(`Decompressed data passed its limit of ${limit} bytes`)
    this.name = 'InflateLimitError'
  }
}

/** The formats DecompressionStream reads. */
export type InflateFormat = 'gzip' | 'deflate' | 'deflate-raw'

export interface InflateOptions {
  /** Refuse once more than this many bytes have been inflated. */
  maxBytes: number
  /** Called with the running counts after each output chunk (tests measure with it). */
  onChunk?: (inflated: number, consumed: number) => void
}

/** Feeds `input` to `writer` a slice at a time, each only once the one before was transformed. */
async function feed(
  input: ReadableStream<Uint8Array<ArrayBuffer>>,
  writer: WritableStreamDefaultWriter<Uint8Array<ArrayBuffer>>,
  onConsumed: (bytes: number) => void,
  stopped: () => boolean,
): Promise<void> {
  const reader = input.getReader()
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      for (let at = 0; at < value.byteLength; at += SLICE_BYTES) {
        if (stopped()) return
        const slice = value.subarray(at, Math.min(value.byteLength, at + SLICE_BYTES))
        onConsumed(slice.byteLength)
        // Resolves once the inflater took the slice, which it does only after the reader drained the
        // output of the slice before (the readable side holds no queue of its own).
        await writer.write(slice)
      }
    }
    if (!stopped()) await writer.close()
  } finally {
    await reader.cancel().catch(() => undefined)
  }
}

/**
 * `input` inflated (`gzip`, `deflate` or `deflate-raw`), erroring with InflateLimitError once the output
 * passes `options.maxBytes`, and with the inflater's own error (a TypeError) when the data is corrupt.
 */
export function boundedInflate(
  input: ReadableStream<Uint8Array<ArrayBuffer>>,
  format: InflateFormat,
  options: InflateOptions,
): ReadableStream<Uint8Array<ArrayBuffer>> {
  const inflater = new DecompressionStream(format) as TransformStream<
    Uint8Array<ArrayBuffer>,
    Uint8Array<ArrayBuffer>
  >
  const writer: WritableStreamDefaultWriter<Uint8Array<ArrayBuffer>> = inflater.writable.getWriter()
  const reader: ReadableStreamDefaultReader<Uint8Array<ArrayBuffer>> = inflater.readable.getReader()
  let inflated = 0
  let consumed = 0
  let stopped = false
  const stop = (reason: unknown): void => {
    stopped = true
    void reader.cancel(reason).catch(() => undefined)
    void writer.abort(reason).catch(() => undefined)
  }
  let feeding: Promise<void> | null = null
  return new ReadableStream<Uint8Array<ArrayBuffer>>(
    {
      async pull(controller) {
        // The feeder's own failures surface through the reader (the inflater errors too).
        feeding ??= feed(
          input,
          writer,
          (n) => (consumed += n),
          () => stopped,
        ).catch(() => undefined)
        const { done, value } = await reader.read()
        if (done) return controller.close()
        inflated += value.byteLength
        options.onChunk?.(inflated, consumed)
        if (inflated > options.maxBytes) {
          const error = new InflateLimitError(inflated, options.maxBytes, consumed)
          stop(error)
          return controller.error(error)
        }
        controller.enqueue(value)
      },
      cancel(reason) {
        stop(reason)
      },
    },
    { highWaterMark: 0 },
  )
}
