import { toAppError, type AppError } from '../platform/app-error'
import { defineStore } from 'pinia'
import { ref } from 'vue'
import { desktopApi } from '../platform'
import type { AppInfo } from '../../electron/shared/contract'
import { appCache } from '../db/cache'
import { CURRENT_VERSION, type MigrationProgress } from '../db/database'
import { moveLegacyHistory, type LegacyMoveProgress } from '../db/legacy-move'

/**
 * What the app knows about its host (version, host kind, keychain), loaded once at start, and whether
 * opening the cache is migrating an older schema: that can take minutes on a big cache (docs/data.md), so the
 * shell says so while it runs instead of looking stuck.
 */
export const useAppStore = defineStore('app', () => {
  const info = ref<AppInfo | null>(null)
  const error = ref<AppError | null>(null)
  const cacheUpgrading = ref(false)
  /** How far the running version step's pass over the cache is (null: none running yet). */
  const cacheUpgradeProgress = ref<MigrationProgress | null>(null)
  /** How far the background move of history an older schema stored is (null: none running). */
  const historyMove = ref<LegacyMoveProgress | null>(null)

  /**
   * Files the history rows an older cache set aside in day parts, in the background (legacy-move.ts); the
   * app is usable meanwhile. Resumes where a quit or crash stopped it, at the next start.
   */
  function startHistoryMove(): void {
    const cache = appCache()
    moveLegacyHistory(cache.db, cache.history.writer, (p) => {
      historyMove.value = p.left > 0 ? p : null
    })
      .catch((e: unknown) => {
        error.value = toAppError(e, 'cache_failed')
      })
      .finally(() => {
        historyMove.value = null
      })
  }

  async function load(): Promise<void> {
    try {
      info.value = await desktopApi().app.info({})
      error.value = null
    } catch (e) {
      error.value = toAppError(e)
    }
  }

  /**
   * Opens the cache. Called before the app mounts: the stored version is asked for synchronously (the
   * answer is the one at call time), before any view's query can start the open and its migration.
   */
  async function openCache(): Promise<void> {
    try {
      const { db } = appCache()
      const stored = await db.storedVersion()
      cacheUpgrading.value = stored !== null && stored < CURRENT_VERSION
      db.onMigrationProgress = (p) => {
        cacheUpgradeProgress.value = p
      }
      try {
        await db.open()
      } finally {
        db.onMigrationProgress = null
      }
      startHistoryMove()
    } catch (e) {
      error.value = toAppError(e, 'cache_failed')
    } finally {
      cacheUpgrading.value = false
      cacheUpgradeProgress.value = null
    }
  }

  return { info, error, cacheUpgrading, cacheUpgradeProgress, historyMove, load, openCache }
})
