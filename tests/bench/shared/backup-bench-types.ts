/** What Node and the page of the backup benchmark (browser/backup-entry.ts) exchange. */

export type BackupBenchHost = 'http' | 'bridge' | 'hostless'

export interface BackupBenchArgs {
  records: number
  /** Charge-list records to fill beside the history (the sandbox's charges, fed by `__charges`). */
  charges: number
  timeZone: string
  /**
   * Where the backup's chunks go (BACKUP_BENCH_HOST): 'http' (the default), the web host's own client
   * (`POST /api/call/files:*`, JSON each way) to main's files handlers and FileWriter in the bench's
   * process; 'bridge', Node through a DevTools binding (`__write`); 'hostless' (or BACKUP_BENCH_HOSTLESS=1),
   * counted in the page and not sent: what the page spends on its own.
   */
  host: BackupBenchHost
  /**
   * The backup written as plain text (BACKUP_BENCH_TEXT=1), as the app wrote it before it wrote gzip;
   * else gzip-compressed and sent as base64, as the app writes it.
   */
  text?: boolean
  /**
   * How history is filled: 'parts' (the default) through the history writer into its day parts, as a sync
   * stores it now; 'rows' one row of `history` per record, as caches written before day parts hold it
   * (BACKUP_BENCH_LAYOUT=rows).
   */
  layout?: 'parts' | 'rows'
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
