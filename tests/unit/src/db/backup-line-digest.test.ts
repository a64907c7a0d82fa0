import { describe, expect, it } from 'vitest'
import { BackupDigest } from '../../../../src/db/backup-digest'
import { LineDigest } from '../../../../src/db/backup-line-digest'

/** The lines a reader yields from `bytes`: decoded (a BOM dropped), split at "\n", a blank tail dropped. */
function linesOf(bytes: Uint8Array): string[] {
  const parts = new TextDecoder('utf-8', { fatal: true }).decode(bytes).split('\n')
  const tail = parts.pop()!
  return tail.trim() !== '' ? [...parts, tail] : parts
}

/** The digest as the text reader made it: lines 1..k, each encoded with a "\n". */
async function textDigest(lines: string[], k: number): Promise<string> {
  const d = new BackupDigest()
  await d.updateText(
    lines
      .slice(0, k)
      .map((l) => `${l}\n`)
      .join(''),
  )
  return d.hex()
}

/** The digest from the bytes, pushed in chunks of the given sizes (cycled), taking lines 1..k. */
async function byteDigest(bytes: Uint8Array, sizes: number[], k: number): Promise<string> {
  const d = new LineDigest()
  for (let at = 0, i = 0; at < bytes.byteLength; i++) {
    const size = Math.max(1, sizes[i % sizes.length]!)
    d.push(bytes.subarray(at, at + size))
    at += size
  }
  for (let line = 1; line <= k; line++) {
    d.take(line)
    if (d.ready) await d.flush()
  }
  return d.hex()
}

const enc = (s: string): Uint8Array => new TextEncoder().encode(s)
const big = Array.from({ length: 3000 }, (_, i) => `{"n":${i},"s":"é日本語🙂 ${'x'.repeat(i % 97)}"}`).join(
  '\n',
)

const FILES: [string, Uint8Array][] = [
  ['lines each ending in a break', enc('{"a":1}\n{"b":2}\n{"end":true}\n')],
  ['a last line without a break', enc('{"a":1}\n{"b":2}')],
  ['a blank tail without a break', enc('{"a":1}\n{"b":2}\n  \t')],
  ['blank lines inside', enc('{"a":1}\n\n\n{"b":2}\n\n')],
  ['CRLF line ends', enc('{"a":1}\r\n{"b":2}\r\n')],
  ['multi-byte characters', enc('{"名前":"日本語"}\n{"e":"🙂é"}\n')],
  ['a byte-order mark', new Uint8Array([0xef, 0xbb, 0xbf, ...enc('{"a":1}\n{"b":2}\n')])],
  ['a byte-order mark not at the start', enc('{"a":1}\n\uFEFF{"b":2}\n')],
  ['a long file of mixed lines', enc(`${big}\n{"end":true}\n{"signature":"s"}\n`)],
  ['a long file without a final break', enc(big)],
]
const CUTS = [[1], [2, 3, 5], [7], [1000], [65536], [1 << 20], [13, 1, 64 * 1024 + 3], [4099, 65536 + 17]]

describe('the digest of a backup from its bytes', () => {
  it('keeps nothing read after it is closed, and its value stays that of the lines taken', async () => {
    const lines = ['{"a":1}', '{"end":true}', '{"signature":"s"}']
    const d = new LineDigest()
    d.push(enc(`${lines.join('\n')}\n`))
    d.take(2)
    d.close()
    for (let i = 0; i < 100; i++) d.push(new Uint8Array(64 * 1024).fill(0x20))
    expect((d as unknown as { chunks: Uint8Array[] }).chunks).toHaveLength(1)
    expect(await d.hex()).toBe(await textDigest(lines, 2))
  })

  it.each(FILES)('is the text digest of the same lines, however the bytes are cut: %s', async (_, bytes) => {
    const lines = linesOf(bytes)
    for (const k of new Set([0, 1, lines.length - 1, lines.length].filter((n) => n >= 0))) {
      const want = await textDigest(lines, k)
      // Cuts of a few bytes on the small files only: the large ones would take seconds each.
      const cuts = bytes.byteLength > 10_000 ? CUTS.filter((c) => Math.min(...c) > 100) : CUTS
      for (const sizes of cuts)
        expect(await byteDigest(bytes, sizes, k), `${k} lines, cut ${sizes.join(',')}`).toBe(want)
    }
  })
})
