import type { Clock } from '../../../../../electron/services/scheduler/clock'

interface Timer {
  at: number
  seq: number
  resolve(): void
}

/** Lets promise chains run: a few macrotask turns, no wall-clock waiting. */
export async function flush(turns = 4): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise<void>((resolve) => setImmediate(resolve))
}

/** Time that moves only when the test says so; timers fire in order as it does. */
export class FakeClock implements Clock {
  private t: number
  private seq = 0
  private readonly timers = new Set<Timer>()

  constructor(start = Date.UTC(2026, 9, 1, 0, 0, 0)) {
    this.t = start
  }

  now(): number {
    return this.t
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) {
        reject(new Error('aborted'))
        return
      }
      const timer: Timer = {
        at: this.t + Math.max(0, ms),
        seq: ++this.seq,
        resolve: () => {
          signal?.removeEventListener('abort', onAbort)
          resolve()
        },
      }
      const onAbort = (): void => {
        this.timers.delete(timer)
        reject(new Error('aborted'))
      }
      signal?.addEventListener('abort', onAbort, { once: true })
      this.timers.add(timer)
    })
  }

  get pendingTimers(): number {
    return this.timers.size
  }

  private next(until: number): Timer | undefined {
    let best: Timer | undefined
    for (const t of this.timers) {
      if (t.at > until) continue
      if (!best || t.at < best.at || (t.at === best.at && t.seq < best.seq)) best = t
    }
    return best
  }

  /** Moves time forward by `ms`, firing due timers one at a time and letting their work run. */
  async advance(ms: number): Promise<void> {
    const end = this.t + ms
    await flush()
    for (;;) {
      const timer = this.next(end)
      if (!timer) break
      this.t = Math.max(this.t, timer.at)
      this.timers.delete(timer)
      timer.resolve()
      await flush()
    }
    this.t = end
    await flush()
  }

  /** Advances until `promise` settles (or `maxMs` of fake time pass); returns its outcome. */
  async run<T>(promise: Promise<T>, maxMs = 10 * 60_000, stepMs = 1_000): Promise<T> {
    let settled = false
    const tracked = promise.then(
      (v) => ((settled = true), v),
      (e: unknown) => {
        settled = true
        throw e
      },
    )
    tracked.catch(() => undefined)
    const end = this.t + maxMs
    await flush()
    while (!settled && this.t < end) await this.advance(Math.min(stepMs, end - this.t))
    if (!settled) throw new Error(`still pending after ${maxMs} ms of fake time`)
    return tracked
  }
}
