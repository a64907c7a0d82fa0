/**
 * Bounds the memory main spends on answers read at once. Every answer is read with a running byte count
 * (payment-api-client.ts) and refused past its own limit; this bounds their sum: an answer that grows
 * past `LARGE_BODY` waits for one of a few slots before it reads on, and holds it until it has been parsed
 * and validated. Sixteen partitions paging at once therefore hold at most 16 × 1 MB plus a few large
 * pages, not sixteen pages of the maximum size. A slot holder never waits for anything but its own
 * answer (bounded by the call's timeout), so slots cannot deadlock.
 */

/** Bytes an answer may hold without a slot: a page of 100 real items is ~200 KB. */
export const LARGE_BODY = 1024 * 1024
/** Answers larger than `LARGE_BODY` read and parsed at once. */
export const LARGE_BODY_SLOTS = 2

export class BodyGate {
  private free: number
  private readonly waiting: (() => void)[] = []

  constructor(slots = LARGE_BODY_SLOTS) {
    this.free = slots
  }

  /** A slot, once one is free; rejects when `signal` aborts first. The returned function gives it back. */
  acquire(signal: AbortSignal): Promise<() => void> {
    if (signal.aborted) return Promise.reject(new Error('aborted while waiting to read a large answer'))
    let released = false
    const release = (): void => {
      if (released) return
      released = true
      const next = this.waiting.shift()
      if (next) next()
      else this.free++
    }
    if (this.free > 0) {
      this.free--
      return Promise.resolve(release)
    }
    return new Promise((resolve, reject) => {
      const take = (): void => {
        signal.removeEventListener('abort', onAbort)
        resolve(release)
      }
      const onAbort = (): void => {
        const at = this.waiting.indexOf(take)
        if (at >= 0) this.waiting.splice(at, 1)
        reject(new Error('aborted while waiting to read a large answer'))
      }
      signal.addEventListener('abort', onAbort, { once: true })
      this.waiting.push(take)
    })
  }

  /** Slots free now (tests). */
  get available(): number {
    return this.free
  }
}
