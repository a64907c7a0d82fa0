/**
 * Time, injected: the scheduler and the API client never touch timers directly, so unit tests drive them
 * with a fake clock and prove the bucket maths without waiting.
 */
import { setTimeout as delay } from 'node:timers/promises'

export interface Clock {
  /** Milliseconds since the epoch (or since the fake clock's start). */
  now(): number
  /** Resolves after `ms`; rejects (with any error) when `signal` aborts first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) => delay(Math.max(0, ms), undefined, signal ? { signal } : {}),
}
