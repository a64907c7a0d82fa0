import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { throttleProgress } from '../../../../src/sync/progress-throttle'

beforeEach(() => void vi.useFakeTimers())
afterEach(() => void vi.useRealTimers())

describe('throttleProgress', () => {
  it('shows the first report at once, then the newest at most once per interval', () => {
    const shown: number[] = []
    const paint = throttleProgress<{ state: string; n: number }>((p) => shown.push(p.n), 250)
    paint.push({ state: 'running', n: 1 })
    expect(shown).toEqual([1])
    for (let n = 2; n <= 10; n++) paint.push({ state: 'running', n })
    expect(shown).toEqual([1])
    vi.advanceTimersByTime(250)
    expect(shown).toEqual([1, 10])
    vi.advanceTimersByTime(1000)
    expect(shown).toEqual([1, 10])
  })

  it('a change of state is shown at once, and cancel drops a kept report', () => {
    const shown: string[] = []
    const paint = throttleProgress<{ state: string }>((p) => shown.push(p.state), 250)
    paint.push({ state: 'running' })
    paint.push({ state: 'running' })
    paint.push({ state: 'cancelling' })
    expect(shown).toEqual(['running', 'cancelling'])
    paint.push({ state: 'cancelling' })
    paint.cancel()
    vi.advanceTimersByTime(1000)
    expect(shown).toEqual(['running', 'cancelling'])
  })
})
