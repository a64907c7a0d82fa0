// Waiting on the team server's wake-ups: released by a wake, by the time limit or by the caller leaving,
// and never left behind.
import { describe, expect, it } from 'vitest'
import { Wakes } from '../../../../../electron/services/team/wakes'

describe('team wake-ups', () => {
  it('a waiter is released by the next wake with the new count, and answers at once when it is behind', async () => {
    const wakes = new Wakes()
    const waiting = wakes.wait(0, 10_000)
    expect(wakes.waiting).toBe(1)
    wakes.wake()
    expect(await waiting).toBe(1)
    expect(wakes.waiting).toBe(0)
    expect(await wakes.wait(0, 10_000)).toBe(1)
  })

  it('a waiter leaves on its time limit or when its caller goes away, with the count unchanged', async () => {
    const wakes = new Wakes()
    expect(await wakes.wait(0, 20)).toBe(0)
    const controller = new AbortController()
    const waiting = wakes.wait(0, 10_000, controller.signal)
    controller.abort()
    expect(await waiting).toBe(0)
    expect(wakes.waiting).toBe(0)
    const closing = wakes.wait(0, 10_000)
    wakes.releaseAll()
    expect(await closing).toBe(0)
    expect(wakes.waiting).toBe(0)
  })
})
