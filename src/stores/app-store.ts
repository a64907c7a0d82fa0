import { defineStore } from 'pinia'
import { ref } from 'vue'
import { desktopApi, DesktopApiError } from '../platform'
import type { AppInfo } from '../../electron/shared/contract'

/** What the app knows about its host: version, host kind, keychain. Loaded once at start. */
export const useAppStore = defineStore('app', () => {
  const info = ref<AppInfo | null>(null)
  const error = ref<string | null>(null)

  async function load(): Promise<void> {
    try {
      info.value = await desktopApi().app.info({})
      error.value = null
    } catch (e) {
      error.value = e instanceof DesktopApiError ? e.message : String(e)
    }
  }

  return { info, error, load }
})
