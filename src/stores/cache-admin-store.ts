/** Settings' view of the cache: its size and state, backup to a file and restore from one. */
import { appError, toAppError, type AppError } from '../platform/app-error'
import { defineStore } from 'pinia'
import { ref, shallowRef } from 'vue'
import {
  BackupValidationError,
  countTables,
  exportBackup,
  restoreBackup,
  summarizeRestore,
  validateBackup,
  type Backup,
  type RestoreSummary,
  type TableCounts,
} from '../db/backup'
import { appCache } from '../db/cache'
import { estimateStorage, requestPersistentStorage, type StorageEstimateResult } from '../db/storage'
import { writeFileThroughHost } from '../platform/files'

/** The backup as JSON text, a row at a time, so a large cache never becomes one giant string. */
export function* backupChunks(backup: Backup): Generator<string> {
  const { tables, ...head } = backup
  yield `${JSON.stringify(head).slice(0, -1)},"tables":{`
  const names = Object.keys(tables) as (keyof typeof tables)[]
  for (const [t, name] of names.entries()) {
    let chunk = `${t > 0 ? ',' : ''}${JSON.stringify(name)}:[`
    const rows = tables[name] as unknown[]
    for (let i = 0; i < rows.length; i++) {
      chunk += (i > 0 ? ',' : '') + JSON.stringify(rows[i])
      if (chunk.length > 256 * 1024) {
        yield chunk
        chunk = ''
      }
    }
    yield `${chunk}]`
  }
  yield '}}'
}

export const useCacheAdminStore = defineStore('cache-admin', () => {
  const storage = ref<StorageEstimateResult | null>(null)
  const counts = ref<TableCounts | null>(null)
  const actorName = ref('accountant')
  const busy = ref<'backup' | 'restore' | null>(null)
  const message = ref<string | null>(null)
  const error = ref<AppError | null>(null)
  const pending = shallowRef<{ backup: Backup; summary: RestoreSummary } | null>(null)

  async function load(): Promise<void> {
    const cache = appCache()
    storage.value = await estimateStorage()
    counts.value = await countTables(cache.db)
    const name = await cache.settings.getRaw('actorName')
    if (typeof name === 'string' && name.trim()) actorName.value = name
  }

  async function persist(): Promise<void> {
    await requestPersistentStorage()
    await load()
  }

  async function saveActorName(name: string): Promise<void> {
    const trimmed = name.trim().slice(0, 80)
    if (!trimmed) return
    await appCache().settings.set('actorName', trimmed)
    actorName.value = trimmed
  }

  async function backup(): Promise<string | null> {
    busy.value = 'backup'
    error.value = null
    try {
      const data = await exportBackup(appCache().db)
      const day = data.exportedAt.slice(0, 10)
      const delivered = await writeFileThroughHost(
        `closebook-backup-${day}.json`,
        'application/json',
        backupChunks(data),
      )
      return delivered.fileName
    } catch (e) {
      error.value = toAppError(e)
      return null
    } finally {
      busy.value = null
    }
  }

  /** Reads and checks a backup file; nothing changes until `confirmRestore`. */
  async function prepareRestore(file: File): Promise<void> {
    error.value = null
    pending.value = null
    try {
      const backup = validateBackup(JSON.parse(await file.text()) as unknown)
      pending.value = { backup, summary: summarizeRestore(await countTables(appCache().db), backup) }
    } catch (e) {
      error.value =
        e instanceof BackupValidationError || e instanceof SyntaxError
          ? appError('backup_invalid', e.message)
          : toAppError(e, 'file_unreadable')
    }
  }

  async function confirmRestore(): Promise<boolean> {
    const p = pending.value
    if (!p) return false
    busy.value = 'restore'
    try {
      await restoreBackup(appCache().db, p.backup, { actor: actorName.value, at: Date.now() })
      pending.value = null
      await load()
      return true
    } catch (e) {
      error.value = toAppError(e)
      return false
    } finally {
      busy.value = null
    }
  }

  return {
    storage,
    counts,
    actorName,
    busy,
    message,
    error,
    pending,
    load,
    persist,
    saveActorName,
    backup,
    prepareRestore,
    confirmRestore,
    cancelRestore: () => (pending.value = null),
  }
})
