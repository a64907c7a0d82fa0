/**
 * The optional team workspace's settings as the Settings view edits them: host, port, database and login
 * (kept by main), the password written once to main's keychain and never read back, and the connection
 * test's answer. Nothing here runs unless the user opens the section: with no workspace the app is unchanged.
 */
import { defineStore } from 'pinia'
import { ref } from 'vue'
import type { TeamConfigInput, TeamSummary, TeamTestResult } from '../../electron/shared/contract'
import { toAppError, type AppError } from '../platform/app-error'
import { desktopApi } from '../platform'

export const useTeamStore = defineStore('team', () => {
  const summary = ref<TeamSummary | null>(null)
  const test = ref<TeamTestResult | null>(null)
  const error = ref<AppError | null>(null)
  const busy = ref<'save' | 'test' | 'forget' | null>(null)

  async function run<T>(kind: 'save' | 'test' | 'forget', call: () => Promise<T>): Promise<T | null> {
    busy.value = kind
    error.value = null
    try {
      return await call()
    } catch (e) {
      error.value = toAppError(e)
      return null
    } finally {
      busy.value = null
    }
  }

  async function load(): Promise<void> {
    try {
      summary.value = await desktopApi().team.get({})
    } catch (e) {
      error.value = toAppError(e)
    }
  }

  /** Saves the settings; an empty password keeps the one already in the keychain. */
  async function save(config: TeamConfigInput, password: string): Promise<boolean> {
    const saved = await run('save', () =>
      desktopApi().team.configure({ config, ...(password ? { password } : {}) }),
    )
    if (saved) {
      summary.value = saved
      test.value = null
    }
    return saved !== null
  }

  async function runTest(): Promise<void> {
    test.value = await run('test', () => desktopApi().team.test({}))
  }

  async function forget(): Promise<void> {
    const left = await run('forget', () => desktopApi().team.forget({}))
    if (left) {
      summary.value = left
      test.value = null
    }
  }

  return { summary, test, error, busy, load, save, runTest, forget }
})
