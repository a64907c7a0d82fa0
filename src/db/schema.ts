/**
 * The cache's current schema, in full: every table and its indexes as opening the cache leaves them. The
 * version steps that lead here are in migrations/ (one frozen file per version); a test checks that the
 * last step's stores are exactly these. A schema change adds a step there and updates this file.
 */
export const CURRENT_VERSION = 12

export const CURRENT_SCHEMA = {
  connections: 'id',
  stores: '[connectionId+storeId]',
  /**
   * Records are found by key, by time (a date range), or a charge's refunds by its id. The store, type,
   * status, currency and mode indexes are kept declared only: rows written by the current history writer leave those
   * fields to `raw` and get no entry, but for refunds (type, charge id) and statuses that can still change
   * (history-row.ts); dropping them would cost an upgrade pass over every record. Field filters read
   * `dayDigests`, search reads `dayTokens`.
   */
  history:
    '[connectionId+key], [connectionId+createdAt], [connectionId+type+createdAt], ' +
    '[connectionId+status+createdAt], [connectionId+storeId+createdAt], ' +
    '[connectionId+currency+createdAt], [connectionId+mode+createdAt], [connectionId+chargeId]',
  /**
   * Charge-list records written before schema v10, by id and time: they stay here (no upgrade pass) until
   * sync writes them again. Since v10 the charge list is `chargeParts`, found through `chargeDays`.
   */
  charges: '[connectionId+id], [connectionId+createdAt]',
  /** Per connection × UTC day, each charge's id, time, store and part (charge-days.ts). */
  chargeDays: '[connectionId+day]',
  /** Per connection × UTC day, the charges themselves, up to CHARGE_PART_SIZE to a part. */
  chargeParts: '[connectionId+day+part]',
  /** The accountant's marks, one row per connection × record's UTC day (day -1: record not cached). */
  markDays: '[connectionId+day], [connectionId+changed]',
  /** Per connection × UTC day, what whole-filter work needs of each record (day-digests.ts). */
  dayDigests: '[connectionId+day]',
  /** Per connection × UTC day part, the search tokens of up to 512 records (day-tokens.ts). */
  dayTokens: '[connectionId+day+part]',
  /** One row per action, found by record or period through tags carrying their connection. */
  audit: '++seq, [connectionId+at], *keyTags, *periodTags',
  checkpoints: '[connectionId+partitionId]',
  locks: '[connectionId+period]',
  settings: 'key',
  imports: '[connectionId+id], [connectionId+hash]',
  importedRows: '[connectionId+importId+line], [connectionId+importId], [connectionId+day]',
  /** Items sync set aside (invalid accounting core, or dated outside the window asked for). */
  quarantine: '[connectionId+id]',
  /** The service's transfers (payout-rows.ts), by id and creation time. */
  payoutTransfers: '[connectionId+id], [connectionId+createdAt]',
  /** Ledger items, by the transfer they belong to (`transferKey` '' while they wait for one) and time. */
  payoutLedgers: '[connectionId+id], [connectionId+transferKey], [connectionId+createdAt]',
  payoutStatusChanges: '[connectionId+id], [connectionId+transferId]',
  /** Bank accounts with masked numbers only. */
  payoutBankAccounts: '[connectionId+id]',
  /** `GET /me` as the app reads it, one row per connection. */
  payoutConfig: 'connectionId',
  /** The payout sync's state per connection: access, the transfer being read and where. */
  payoutSync: 'connectionId',
  /** Payout items set aside (invalid accounting core). */
  payoutQuarantine: '[connectionId+id]',
  /** A ledger id → the charge or refund that carries it (`ledger_id` in the charge list). */
  ledgerLinks: '[connectionId+ledgerId], [connectionId+recordId]',
  /**
   * The team workspace (v12): writes waiting for the server with their idempotency keys, writes it refused
   * (reason and state, for the user), its audit rows pulled so far, and per merchant the verified chain
   * head and the marks' server versions. Keyed by the service's merchant id and mode, never a connection.
   */
  teamOutbox: '++id, &key, merchant',
  teamRefused: '++id, merchant',
  teamAudit: '[merchant+seq]',
  teamState: 'merchant',
  /** A restore's staging copies (v9; the charge days and parts v10): filled by a restore, then copied into the tables above at once. */
  staged_connections: 'id',
  staged_stores: '[connectionId+storeId]',
  staged_history: '[connectionId+key], [connectionId+createdAt]',
  staged_charges: '[connectionId+id], [connectionId+createdAt]',
  staged_chargeDays: '[connectionId+day]',
  staged_chargeParts: '[connectionId+day+part]',
  staged_markDays: '[connectionId+day]',
  staged_dayDigests: '[connectionId+day]',
  staged_dayTokens: '[connectionId+day+part]',
  staged_audit: 'seq',
  staged_checkpoints: '[connectionId+partitionId]',
  staged_locks: '[connectionId+period]',
  staged_settings: 'key',
  staged_imports: '[connectionId+id]',
  staged_importedRows: '[connectionId+importId+line]',
  staged_payoutTransfers: '[connectionId+id]',
  staged_payoutLedgers: '[connectionId+id]',
  staged_payoutStatusChanges: '[connectionId+id]',
  staged_payoutBankAccounts: '[connectionId+id]',
  staged_payoutConfig: 'connectionId',
  staged_ledgerLinks: '[connectionId+ledgerId]',
} as const

export type TableName = keyof typeof CURRENT_SCHEMA

/** Every table, in a fixed order (whole-cache transactions: backup, restore). */
export const TABLE_NAMES = [
  'connections',
  'stores',
  'history',
  'charges',
  'chargeDays',
  'chargeParts',
  'markDays',
  'dayDigests',
  'dayTokens',
  'audit',
  'checkpoints',
  'locks',
  'settings',
  'imports',
  'importedRows',
  'quarantine',
  'payoutTransfers',
  'payoutLedgers',
  'payoutStatusChanges',
  'payoutBankAccounts',
  'payoutConfig',
  'payoutSync',
  'payoutQuarantine',
  'ledgerLinks',
  'teamOutbox',
  'teamRefused',
  'teamAudit',
  'teamState',
] as const satisfies readonly TableName[]
