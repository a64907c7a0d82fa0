/** What Node and the page of the backup benchmark (browser/backup-entry.ts) exchange. */
export interface BackupBenchArgs {
  records: number
  /** Charge-list records to fill beside the history (the sandbox's charges, fed by `__charges`). */
  charges: number
  timeZone: string
  /**
   * The backup's chunks are counted but not handed to Node (BACKUP_BENCH_HOSTLESS=1): what the page
   * spends on its own, without the DevTools binding's transfer the bench stands in for the host with.
   */
  hostless?: boolean
}

export interface BackupRunResult {
  records: number
  /** Charge-list records the cache holds in its day parts. */
  charges: number
  marks: number
  fillMs: number
  backupMs: number
  /** Of which waiting for the host to take the chunks (one is written while the next is read). */
  hostMs: number
  /** Characters streamBackup produced (the file is UTF-8: at least as many bytes). */
  chars: number
  userAgent: string
}

export interface RestoreRunResult {
  fileBytes: number
  restoreMs: number
  /** The restore's phases (read into staging, index, switch), ms each. */
  phasesMs: Record<string, number>
  restored: number
  restoredMarks: number
  restoredCharges: number
  /** A sample of restored records equals the originals field for field, and the day rows match. */
  sampleIdentical: boolean
  /** What differed, when something did. */
  difference: string
}
