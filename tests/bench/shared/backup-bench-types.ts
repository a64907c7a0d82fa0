/** What Node and the page of the backup benchmark (browser/backup-entry.ts) exchange. */
export interface BackupBenchArgs {
  records: number
  timeZone: string
}

export interface BackupRunResult {
  records: number
  marks: number
  fillMs: number
  backupMs: number
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
  /** A sample of restored records equals the originals field for field, and the day rows match. */
  sampleIdentical: boolean
  /** What differed, when something did. */
  difference: string
}
