// Wake-ups from the team server's NOTIFY, counted, for callers waiting on them: a waiter resolves as soon as
// the count passes the one it last saw, when its time is up, or when its caller goes away (its listener is
// removed then, so waiters never pile up). Missing a wake costs only latency: polling stays the fallback.

export class Wakes {
  private count = 0
  private readonly waiters = new Set<() => void>()

  get value(): number {
    return this.count
  }

  /** One NOTIFY heard: every waiter is released. */
  wake(): void {
    this.count += 1
    for (const release of [...this.waiters]) release()
  }

  /** Resolves with the count once it exceeds `after`, or after `timeoutMs`, or when `signal` aborts. */
  wait(after: number, timeoutMs: number, signal?: AbortSignal): Promise<number> {
    if (this.count > after || signal?.aborted) return Promise.resolve(this.count)
    return new Promise((resolve) => {
      const release = (): void => {
        clearTimeout(timer)
        this.waiters.delete(release)
        signal?.removeEventListener('abort', release)
        resolve(this.count)
      }
      const timer = setTimeout(release, timeoutMs)
      this.waiters.add(release)
      signal?.addEventListener('abort', release, { once: true })
    })
  }

  /** Releases every waiter (the session closes or the settings change). */
  releaseAll(): void {
    for (const release of [...this.waiters]) release()
  }

  /** How many callers are waiting (for tests and leak checks). */
  get waiting(): number {
    return this.waiters.size
  }
}
