/**
 * A fixed-size sieve of keys (a Bloom filter): `has` is never false for a key added, and rarely true for
 * one that was not. A restore asks it whether a record's key may have been written already, and checks
 * only those it answers yes for against the stored index: memory is the same 8 MiB whether the backup
 * holds a thousand records or ten million (more keys only make a needless check likelier: about 1 in
 * 100,000 keys at 2 million).
 */

/** Bits in the sieve: 2^26 (8 MiB). */
const BITS_LOG2 = 26
const MASK = (1 << BITS_LOG2) - 1
/** Bits set per key. */
const PROBES = 6

/** Two independent 32-bit hashes of `s` (FNV-1a, and a multiply-xorshift over the same code units). */
function hashes(s: string): [number, number] {
  let a = 0x811c9dc5
  let b = 0x9e3779b9
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    a = Math.imul(a ^ c, 0x01000193)
    b = Math.imul(b ^ c, 0x5bd1e995)
    b ^= b >>> 15
  }
  b = Math.imul(b ^ (b >>> 13), 0xc2b2ae35)
  return [a >>> 0, (b ^ (b >>> 16)) | 1]
}

export class KeySieve {
  #bits: Uint32Array | null = null

  /** Notes `key` as present. */
  add(key: string): void {
    const bits = (this.#bits ??= new Uint32Array(1 << (BITS_LOG2 - 5)))
    const [a, b] = hashes(key)
    for (let i = 0; i < PROBES; i++) {
      const bit = (a + Math.imul(i, b)) & MASK
      const word = bit >>> 5
      bits[word] = (bits[word] ?? 0) | (1 << (bit & 31))
    }
  }

  /** False when `key` was certainly never added; true when it may have been. */
  has(key: string): boolean {
    const bits = this.#bits
    if (!bits) return false
    const [a, b] = hashes(key)
    for (let i = 0; i < PROBES; i++) {
      const bit = (a + Math.imul(i, b)) & MASK
      if (((bits[bit >>> 5] ?? 0) & (1 << (bit & 31))) === 0) return false
    }
    return true
  }
}
