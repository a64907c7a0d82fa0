/**
 * Deterministic randomness for the sandbox: the same seed gives the same merchant, stores, records and
 * fault decisions on every machine. sfc32 is small, fast and good enough for test data (not for secrets).
 */
export class Prng {
  private a: number
  private b: number
  private c: number
  private d: number

  constructor(seed: number | string) {
    const h = typeof seed === 'number' ? hash32(`seed:${seed}`) : hash32(seed)
    this.a = h
    this.b = hash32(`${seed}:b`)
    this.c = hash32(`${seed}:c`)
    this.d = 1
    for (let i = 0; i < 15; i++) this.nextUint32()
  }

  nextUint32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0
    this.d = (this.d + 1) | 0
    this.a = this.b ^ (this.b >>> 9)
    this.b = (this.c + (this.c << 3)) | 0
    this.c = (this.c << 21) | (this.c >>> 11)
    this.c = (this.c + t) | 0
    return t >>> 0
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.nextUint32() / 4294967296
  }

  /** Integer in [min, max], both inclusive. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1))
  }

  chance(p: number): boolean {
    return this.next() < p
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list')
    return items[Math.floor(this.next() * items.length)] as T
  }

  /** Picks by weight: `[[value, weight], …]`. */
  weighted<T>(choices: readonly (readonly [T, number])[]): T {
    const total = choices.reduce((s, [, w]) => s + w, 0)
    let r = this.next() * total
    for (const [value, weight] of choices) {
      r -= weight
      if (r < 0) return value
    }
    return (choices[choices.length - 1] as readonly [T, number])[0]
  }

  /** A version-4 UUID made from this generator (lower case, as the service sends them). */
  uuid(): string {
    const hex = (n: number) => n.toString(16).padStart(8, '0')
    const w = [this.nextUint32(), this.nextUint32(), this.nextUint32(), this.nextUint32()].map(hex).join('')
    const variant = ((parseInt(w[16] as string, 16) & 0x3) | 0x8).toString(16)
    return `${w.slice(0, 8)}-${w.slice(8, 12)}-4${w.slice(13, 16)}-${variant}${w.slice(17, 20)}-${w.slice(20, 32)}`
  }
}

/** FNV-1a, 32 bits. */
export function hash32(text: string): number {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  return h >>> 0
}

/**
 * A reproducible roll in [0, 1) for a named decision, e.g. (`seed`, `fail`, exact path, attempt n): the same
 * request gets the same fault on every run, whatever order concurrent requests arrive in.
 */
export function roll(...parts: (string | number)[]): number {
  const text = parts.join('|')
  // Two rounds so that similar keys spread well.
  return hash32(`${hash32(text)}:${text}`) / 4294967296
}
