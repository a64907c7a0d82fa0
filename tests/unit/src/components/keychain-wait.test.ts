import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { effectScope, nextTick, ref } from 'vue'
import { createSSRApp, h } from 'vue'
import { renderToString } from 'vue/server-renderer'
import type { DesktopApi } from '../../../../electron/shared/contract'
import KeychainWait from '../../../../src/components/KeychainWait.vue'
import { useKeychainWait } from '../../../../src/components/keychain-wait'
import { createAppI18n } from '../../../../src/i18n'
import { setDesktopApiForTests } from '../../../../src/platform'

describe('waiting for the keychain', () => {
  let cancels = 0
  beforeEach(() => {
    vi.useFakeTimers()
    cancels = 0
    setDesktopApiForTests({
      vault: {
        cancelWaits: () => {
          cancels++
          return Promise.resolve({ cancelled: 1 })
        },
      },
    } as unknown as DesktopApi)
  })
  afterEach(() => {
    vi.useRealTimers()
    setDesktopApiForTests(undefined)
  })

  it('says nothing for a quick save, offers to stop waiting on a slow one, and stops through main', async () => {
    const active = ref(false)
    const scope = effectScope()
    const wait = scope.run(() => useKeychainWait(() => active.value, 1000))!
    active.value = true
    await nextTick()
    vi.advanceTimersByTime(999)
    expect(wait.shown.value).toBe(false)
    vi.advanceTimersByTime(1)
    expect(wait.shown.value).toBe(true)
    await wait.stop()
    expect(cancels).toBe(1)
    expect(wait.stopping.value).toBe(true)
    // The save ended (cancelled): hidden again, and the next save starts hidden.
    active.value = false
    await nextTick()
    expect(wait.shown.value).toBe(false)
    active.value = true
    await nextTick()
    expect(wait.shown.value).toBe(false)
    expect(wait.stopping.value).toBe(false)
    scope.stop()
  })

  it('a save that ends before the moment passes never shows it', async () => {
    const active = ref(true)
    const scope = effectScope()
    const wait = scope.run(() => useKeychainWait(() => active.value, 1000))!
    vi.advanceTimersByTime(500)
    active.value = false
    await nextTick()
    vi.advanceTimersByTime(5000)
    expect(wait.shown.value).toBe(false)
    scope.stop()
  })

  it('renders nothing while not waiting', async () => {
    const app = createSSRApp({ render: () => h(KeychainWait, { active: false }) })
    app.use(createAppI18n('ja'))
    expect(await renderToString(app)).not.toContain('keychain-wait')
  })
})
