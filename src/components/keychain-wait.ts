/**
 * The state behind KeychainWait.vue: `shown` once a keychain-backed call has been running for `afterMs`
 * (never for a quick one), and `stop()`, which asks main to end the keychain's wait; the call then fails
 * with `cancelled`. Each new call starts hidden again.
 */
import { onScopeDispose, ref, watch, type Ref } from 'vue'
import { desktopApi } from '../platform'

export function useKeychainWait(
  active: () => boolean,
  afterMs = 1000,
): { shown: Ref<boolean>; stopping: Ref<boolean>; stop: () => Promise<void> } {
  const shown = ref(false)
  const stopping = ref(false)
  let timer: ReturnType<typeof setTimeout> | undefined

  watch(
    active,
    (now) => {
      clearTimeout(timer)
      shown.value = false
      stopping.value = false
      if (now) timer = setTimeout(() => (shown.value = true), afterMs)
    },
    { immediate: true },
  )
  onScopeDispose(() => clearTimeout(timer))

  async function stop(): Promise<void> {
    stopping.value = true
    // Nothing waiting any more (the call just ended) is no error: the call's own outcome is shown.
    await desktopApi()
      .vault.cancelWaits({})
      .catch(() => undefined)
  }

  return { shown, stopping, stop }
}
