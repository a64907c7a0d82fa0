import { describe, expect, it } from 'vitest'
import { claimSingleInstance, type SingleInstanceApp } from '../../../../electron/main/single-instance'

function fakeApp(lockFree: boolean) {
  const listeners = new Map<string, () => void>()
  let quit = 0
  const app = {
    requestSingleInstanceLock: () => lockFree,
    quit: () => void quit++,
    on: (event: string, listener: () => void) => {
      listeners.set(event, listener)
      return app
    },
  } as unknown as SingleInstanceApp
  return { app, listeners, quits: () => quit }
}

describe('single desktop instance', () => {
  it('the first instance keeps the lock and shows its window when a second one starts', () => {
    const { app, listeners, quits } = fakeApp(true)
    let shown = 0
    expect(claimSingleInstance(app, () => void shown++)).toBe(true)
    expect(quits()).toBe(0)
    listeners.get('second-instance')?.()
    expect(shown).toBe(1)
  })

  it('a second instance quits and says what is already running', () => {
    const { app, quits } = fakeApp(false)
    const logged: string[] = []
    expect(
      claimSingleInstance(
        app,
        () => undefined,
        (m) => logged.push(m),
      ),
    ).toBe(false)
    expect(quits()).toBe(1)
    expect(logged.join('\n')).toContain('Closebook is already running')
  })
})
