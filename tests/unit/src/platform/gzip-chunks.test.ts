import { gunzipSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { base64Of, gzipBase64Chunks } from '../../../../src/platform/gzip-chunks'

/** Lines of JSON with Latin and Japanese text, some repeated, some not: what a backup's text looks like. */
function textChunks(count: number): string[] {
  return Array.from({ length: count }, (_, i) => {
    const name = i % 3 === 0 ? `山田 太郎 ${i}` : `Taro Yamada ${(i * 7919) % 10007}`
    return `{"connectionId":"c","syncedAt":${1_700_000_000_000 + i},"raw":{"id":"${i.toString(36)}","name":"${name}"}}\n`
  })
}

const collect = async (chunks: AsyncIterable<string>): Promise<string[]> => {
  const out: string[] = []
  for await (const c of chunks) out.push(c)
  return out
}

describe('gzipBase64Chunks', () => {
  it('sends the gzip of the text as base64 chunks, each whole groups of at most the chunk size', async () => {
    const text = textChunks(3000)
    const chunks = await collect(gzipBase64Chunks(text, 1000))
    expect(chunks.length).toBeGreaterThan(3)
    for (const [i, c] of chunks.entries()) {
      expect(c.length % 4, `chunk ${i}`).toBe(0)
      expect(c.length).toBeLessThanOrEqual((1000 / 3) * 4 + 4)
      if (i < chunks.length - 1) expect(c, `chunk ${i}`).not.toContain('=')
    }
    // Each chunk decodes alone, as the host decodes it.
    const bytes = Buffer.concat(chunks.map((c) => Buffer.from(c, 'base64')))
    expect(gunzipSync(bytes).toString('utf8')).toBe(text.join(''))
  })

  it('writes an empty text as a gzip of nothing', async () => {
    const chunks = await collect(gzipBase64Chunks(['', '']))
    expect(gunzipSync(Buffer.concat(chunks.map((c) => Buffer.from(c, 'base64')))).length).toBe(0)
  })

  it('throws the source’s own error, and stops the source when the reader stops early', async () => {
    const refused = new Error('changed during backup')
    function* failing(): Generator<string> {
      yield* textChunks(200)
      throw refused
    }
    await expect(collect(gzipBase64Chunks(failing(), 300))).rejects.toBe(refused)

    let pulled = 0
    let stopped = false
    function* endless(): Generator<string> {
      try {
        // Text that compresses little: deflate then emits output every few of its blocks.
        for (let x = 1; ;) {
          pulled++
          let line = ''
          for (let k = 0; k < 8; k++) line += (x = (Math.imul(x, 1_103_515_245) + 12_345) >>> 0).toString(36)
          yield `${line}\n`
        }
      } finally {
        stopped = true
      }
    }
    for await (const chunk of gzipBase64Chunks(endless(), 300)) {
      expect(chunk.length).toBeGreaterThan(0)
      break
    }
    expect(stopped).toBe(true)
    // An endless source, read only as the compressor takes it (about a megabyte ahead in Node's).
    expect(pulled).toBeLessThan(50_000)
  })

  it('encodes base64 as Node does, over slices', () => {
    const bytes = new Uint8Array(100_003).map((_, i) => (i * 131) % 256)
    expect(base64Of(bytes)).toBe(Buffer.from(bytes).toString('base64'))
  })
})
