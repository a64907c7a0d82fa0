/**
 * Settings' backup signing key: exported to a key file under a passphrase the user chooses, imported from
 * one on another computer. The key itself stays in main's keychain; only the wrapped file passes here.
 */
import { defineStore } from 'pinia'
import { ref } from 'vue'
import { DesktopApiError, desktopApi } from '../platform'
import { writeFileThroughHost } from '../platform/files'

/** A key file is a few hundred bytes; anything much larger is not one (and is not read). */
const MAX_KEY_FILE_BYTES = 4_096
export const MIN_PASSPHRASE = 10

export type KeyOutcome =
  | { kind: 'exported'; file: string }
  | { kind: 'imported' }
  | { kind: 'error'; message: 'wrongPassphrase' | 'notAKeyFile' | 'tooShort' | 'failed'; detail?: string }

export const useBackupKeyStore = defineStore('backup-key', () => {
  const busy = ref(false)
  const outcome = ref<KeyOutcome | null>(null)

  async function run(work: () => Promise<KeyOutcome>): Promise<void> {
    busy.value = true
    outcome.value = null
    try {
      outcome.value = await work()
    } catch (e) {
      const reason = e instanceof DesktopApiError ? e.details?.['reason'] : undefined
      outcome.value =
        reason === 'passphrase'
          ? { kind: 'error', message: 'wrongPassphrase' }
          : reason === 'keyFile'
            ? { kind: 'error', message: 'notAKeyFile' }
            : { kind: 'error', message: 'failed', detail: e instanceof Error ? e.message : String(e) }
    } finally {
      busy.value = false
    }
  }

  const tooShort = (passphrase: string): KeyOutcome | null =>
    passphrase.length < MIN_PASSPHRASE ? { kind: 'error', message: 'tooShort' } : null

  async function exportKey(passphrase: string): Promise<void> {
    await run(async () => {
      const refused = tooShort(passphrase)
      if (refused) return refused
      const { keyFile } = await desktopApi().backup.exportKey({ passphrase })
      const delivered = await writeFileThroughHost('closebook-signing-key.json', 'application/json', [
        keyFile,
      ])
      return { kind: 'exported', file: delivered.fileName }
    })
  }

  async function importKey(file: File, passphrase: string): Promise<void> {
    await run(async () => {
      const refused = tooShort(passphrase)
      if (refused) return refused
      if (file.size > MAX_KEY_FILE_BYTES) return { kind: 'error', message: 'notAKeyFile' }
      await desktopApi().backup.importKey({ keyFile: await file.text(), passphrase })
      return { kind: 'imported' }
    })
  }

  return { busy, outcome, exportKey, importKey }
})
