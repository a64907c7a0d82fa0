import { deflateRawSync, gzipSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { boundedInflate, InflateLimitError, SLICE_BYTES } from '../../../../electron/shared/bounded-inflate'

const MIB = 1024 * 1024

/** `bytes` as a stream of one chunk: the worst case, where a whole file arrives at once. */
const oneChunk = (bytes: Uint8Array): ReadableStream<Uint8Array<ArrayBuffer>> =>
  new ReadableStream({
    start(controller) {
      controller.enqueue(new Uint8Array(bytes))
      controller.close()
    },
  })

async function drain(stream: ReadableStream<Uint8Array>): Promise<number> {
  let n = 0
  const reader = stream.getReader()
  for (;;) {
    const { done, value } = await reader.read()
    if (done) return n
    n += value.byteLength
  }
}

describe('bounded inflate', () => {
  it('inflates what stays within its limit, byte for byte', async () => {
    const text = 'closebook '.repeat(100_000)
    const reader = boundedInflate(oneChunk(gzipSync(text)), 'gzip', { maxBytes: text.length }).getReader()
    const parts: Uint8Array[] = []
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      parts.push(value)
    }
    expect(Buffer.concat(parts).toString()).toBe(text)
  })

  it('stops a gzip bomb once its limit is passed, having inflated at most one chunk more', async () => {
    // 256 MiB of zeros is about 250 KiB of gzip, handed over in one chunk.
    const bomb = gzipSync(Buffer.alloc(256 * MIB))
    const limit = 4 * MIB
    let largestChunk = 0
    let last = 0
    const error = await drain(
      boundedInflate(oneChunk(bomb), 'gzip', {
        maxBytes: limit,
        onChunk: (inflated) => {
          largestChunk = Math.max(largestChunk, inflated - last)
          last = inflated
        },
      }),
    ).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(InflateLimitError)
    const refused = error as InflateLimitError
    expect(refused.inflated).toBeGreaterThan(limit)
    expect(refused.inflated).toBeLessThanOrEqual(limit + largestChunk)
    expect(largestChunk).toBeLessThanOrEqual(64 * 1024)
    // What was fed is what was inflated, give or take a slice: the rest of the bomb was never inflated,
    // so memory never held more than a few slices' output ahead of the reader (deflate expands ≤ 1032×).
    expect(refused.consumed).toBeLessThanOrEqual(Math.ceil(limit / 1000) + 4 * SLICE_BYTES)
    expect(refused.consumed).toBeLessThan(bomb.byteLength / 10)
  })

  it('stops a raw deflate bomb the same way', async () => {
    const bomb = deflateRawSync(Buffer.alloc(128 * MIB))
    const error = await drain(boundedInflate(oneChunk(bomb), 'deflate-raw', { maxBytes: MIB })).catch(
      (e: unknown) => e,
    )
    expect(error).toMatchObject({ name: 'InflateLimitError', limit: MIB })
    expect((error as InflateLimitError).consumed).toBeLessThanOrEqual(Math.ceil(MIB / 1000) + 4 * SLICE_BYTES)
  })

  it('errors on corrupt data rather than returning part of it as if whole', async () => {
    const good = gzipSync(Buffer.from('x'.repeat(10_000)))
    const bad = good.subarray(0, good.byteLength - 12)
    await expect(drain(boundedInflate(oneChunk(bad), 'gzip', { maxBytes: MIB }))).rejects.toThrow()
  })
})
