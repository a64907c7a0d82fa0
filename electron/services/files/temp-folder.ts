/**
 * `<dataDir>/tmp`, where exports, backups and CSV files grow until they are delivered: private (0700),
 * and cleared of every `*.partial` once per run, before the run's first file is created there. A host
 * holds its data directory alone (the desktop's single-instance lock, the web host's lock file), so a
 * partial file found then was left by an earlier run that crashed or was killed mid-export; it holds
 * what exports hold (cardholder names, e-mails) and nobody can finish it.
 */
import { chmod, mkdir, readdir, rm } from 'node:fs/promises'
import { join } from 'node:path'

/** A folder only its owner may enter. */
export async function privateDir(path: string): Promise<void> {
  await mkdir(path, { recursive: true, mode: 0o700 })
  await chmod(path, 0o700)
}

/** Removes every `*.partial` file directly in `dir`; returns their names. A missing folder has none. */
export async function removePartialFiles(dir: string): Promise<string[]> {
  const removed: string[] = []
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => [])
  for (const entry of entries) {
    if (!entry.name.endsWith('.partial') || entry.isDirectory()) continue
    await rm(join(dir, entry.name), { force: true })
    removed.push(entry.name)
  }
  return removed
}

export class TempFolder {
  private cleared: Promise<string[]> | undefined

  constructor(readonly path: string) {}

  /** Clears what earlier runs left, once (a failure is retried on the next call); then the folder exists. */
  async ready(): Promise<void> {
    this.cleared ??= removePartialFiles(this.path).catch((error: unknown) => {
      this.cleared = undefined
      throw error
    })
    await this.cleared
    await privateDir(this.path)
  }

  /** The names `ready` removed at the start of this run. */
  async leftovers(): Promise<string[]> {
    await this.ready()
    return (await this.cleared) ?? []
  }
}
