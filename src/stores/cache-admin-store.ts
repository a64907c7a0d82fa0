/** Settings' view of the cache: its size and state, backup to a file and restore from one. */
import { moveLegacyHistory } from '../db/legacy-move'
import { toAppError, type AppError } from '../platform/app-error'
import { defineStore } from 'pinia'
import { ref, shallowRef } from 'vue'
import {
  BACKUP_TABLE_NAMES,
  countTables,
  type Backup,
  type RestoreSummary,
  type TableCounts,
} from '../db/backup'
import {
  assertRestoreComplete,
  BackupError,
  checkBackupFile,
  restoreBackupFile,
  streamBackup,
  type BackupCheck,
  type RestoreVerification,
  type StreamProgress,
} from '../db/backup-stream'
import { appCache } from '../db/cache'
import { estimateStorage, requestPersistentStorage, type StorageEstimateResult } from '../db/storage'
import { writeFileThroughHost } from '../platform/files'
import { desktopApi } from '../platform'
import { DEFAULT_ACTOR } from '../i18n/actor'

/**
 * A version-1 backup as JSON text, a row at a time. The app now writes version 2 (`streamBackup`), which
 * never holds the cache in memory; this stays for tests that build a version-1 file.
 */
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

/** A checked file waiting for the user's go: what it would replace, and whether its signature verified. */
export interface PendingRestore {
  file: File
  summary: RestoreSummary
  digest: string
  verification: { status: RestoreVerification['status']; reason?: string }
}

/** What main says of a checked file's signature; `unavailable` (with why) when it could not ask. */
async function verificationOf(check: BackupCheck): Promise<PendingRestore['verification']> {
  if (!check.signature) return { status: 'unsigned' }
  try {
    return await desktopApi().backup.verify({ digest: check.digest, ...check.signature })
  } catch (e) {
    const error = toAppError(e)
    return { status: 'unavailable', reason: (error.detail ?? error.code).slice(0, 200) }
  }
}

/** Main signs the finished backup's digest; with no keychain the backup is written unsigned. */
const signDigest = (digest: string) =>
  desktopApi()
    .backup.sign({ digest })
    .catch(() => null)

export const useCacheAdminStore = defineStore('cache-admin', () => {
  const storage = ref<StorageEstimateResult | null>(null)
  const counts = ref<TableCounts | null>(null)
  const actorName = ref(DEFAULT_ACTOR)
  const busy = ref<'backup' | 'check' | 'restore' | null>(null)
  const progress = ref<StreamProgress | null>(null)
  const message = ref<string | null>(null)
  const error = ref<AppError | null>(null)
  /** A backup refused or interrupted: the view words it from the code. */
  const backupError = shallowRef<BackupError | null>(null)
  const pending = shallowRef<PendingRestore | null>(null)
  let abort: AbortController | null = null

  function fail(e: unknown): void {
    if (e instanceof BackupError) backupError.value = e
    error.value = toAppError(e)
  }

  async function load(): Promise<void> {
    const cache = appCache()
    storage.value = await estimateStorage()
    counts.value = await countTables(cache.db)
    const name = await cache.settings.getRaw('actorName')
    if (typeof name === 'string' && name.trim()) actorName.value = name
    await assertRestoreComplete(cache.db).catch(fail)
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

  function begin(kind: 'backup' | 'check' | 'restore'): AbortSignal {
    busy.value = kind
    message.value = null
    error.value = null
    backupError.value = null
    progress.value = { done: 0, total: null }
    abort = new AbortController()
    return abort.signal
  }

  function end(): void {
    busy.value = null
    progress.value = null
    abort = null
  }

  /** Moves whatever history an older version stored that is still set aside (legacy-move.ts). */
  function finishHistoryMove(): Promise<void> {
    const cache = appCache()
    return moveLegacyHistory(cache.db, cache.history.writer)
  }

  /**
   * Streams the backup to the host a page at a time, gzip-compressed (the host then takes and writes about
   * a tenth of the text's bytes); Cancel leaves no file.
   */
  async function backup(): Promise<string | null> {
    const signal = begin('backup')
    try {
      // Records an older version stored and not yet moved are moved first (the move joins the running one).
      await finishHistoryMove()
      const now = new Date()
      const delivered = await writeFileThroughHost(
        `closebook-backup-${now.toISOString().slice(0, 10)}.jsonl.gz`,
        'application/gzip',
        streamBackup(appCache().db, { now, signal, sign: signDigest }),
        { signal, onProgress: (done) => (progress.value = { done, total: null }) },
      )
      return delivered.fileName
    } catch (e) {
      if (!signal.aborted) fail(e)
      return null
    } finally {
      end()
    }
  }

  /**
   * Reads and checks the whole backup file (pass one: format, rows, zones, closed months) for the preview;
   * nothing changes until `confirmRestore`, whose pass two also refuses rows that contradict their records.
   */
  async function prepareRestore(file: File): Promise<void> {
    pending.value = null
    const signal = begin('check')
    try {
      const check = await checkBackupFile(file, { signal, onProgress: (p) => (progress.value = p) })
      const current = await countTables(appCache().db)
      const tables = Object.fromEntries(
        BACKUP_TABLE_NAMES.map((t) => [t, { current: current[t], incoming: check.counts[t] }]),
      ) as RestoreSummary['tables']
      pending.value = {
        file,
        summary: { exportedAt: check.exportedAt, tables },
        digest: check.digest,
        verification: await verificationOf(check),
      }
    } catch (e) {
      if (!signal.aborted) fail(e)
    } finally {
      end()
    }
  }

  /**
   * Replaces the cache with the checked file (pass two). The file is staged first and switched in with
   * one transaction, so Cancel, a refusal (a record or mark twice, a mark or audit entry against its
   * record) or a failure before the switch leaves the cache as it was. A file whose signature did not
   * verify restores only with `acknowledged` (the user saw the warning), which its audit entry records.
   */
  async function confirmRestore(acknowledged = false): Promise<boolean> {
    const p = pending.value
    if (!p) return false
    const verified = p.verification.status === 'verified'
    if (!verified && !acknowledged) return false
    const signal = begin('restore')
    try {
      // The restore replaces the records: none may be left to move into the restored cache afterwards.
      await finishHistoryMove()
      await restoreBackupFile(appCache().db, p.file, {
        actor: actorName.value,
        at: Date.now(),
        signal,
        onProgress: (next) => (progress.value = next),
        verification: { status: p.verification.status, warned: !verified },
        expectDigest: p.digest,
      })
      pending.value = null
      await load()
      return true
    } catch (e) {
      if (signal.aborted) message.value = 'restoreCancelled'
      else fail(e)
      return false
    } finally {
      end()
    }
  }

  return {
    storage,
    counts,
    actorName,
    busy,
    progress,
    message,
    error,
    backupError,
    pending,
    load,
    persist,
    saveActorName,
    backup,
    prepareRestore,
    confirmRestore,
    cancelWork: () => abort?.abort(),
    cancelRestore: () => (pending.value = null),
  }
})
