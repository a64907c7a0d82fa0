/**
 * The cache's current schema, in full: every table and its indexes as opening the cache leaves them. The
 * version steps that lead here are in migrations/ (one frozen file per version); a test checks that the
 * last step's stores are exactly these. A schema change adds a step there and updates this file.
 */
export const CURRENT_VERSION = 17

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
   * Since v15 history is stored here, in parts of up to 512 records per connection × UTC day, found by
   * key, a charge's refunds, refund time and changeable status or mode (history-parts.ts); `history`
   * keeps the rows written before, which answer until sync writes their records again.
   */
  historyParts: '[connectionId+day+part], *keys, *refundKeys, *refundTimes, *facets',
  /**
   * Charge-list records written before schema v10, by id and time: they stay here (no upgrade pass) until
   * sync writes them again. Since v10 the charge list is `chargeParts`, found through `chargeDays`.
   */
  charges: '[connectionId+id], [connectionId+createdAt]',
  /** Per connection × UTC day, each charge's id, time, store and part (charge-days.ts). */
  chargeDays: '[connectionId+day]',
  /**
   * Per connection × UTC day, the charges themselves, up to CHARGE_PART_SIZE to a part, found by a
   * charge's ledger id through `[connectionId, ledgerId]` entries (v14, ledger-links.ts).
   */
  chargeParts: '[connectionId+day+part], *ledgerKeys',
  /** The accountant's marks, one row per connection × record's UTC day (day -1: record not cached). */
  markDays: '[connectionId+day], [connectionId+changed]',
  /** Per connection × UTC day, what whole-filter work needs of each record (day-digests.ts). */
  dayDigests: '[connectionId+day]',
  /** Per connection × UTC day part, the search tokens of up to 512 records (day-tokens.ts). */
  dayTokens: '[connectionId+day+part]',
  /**
   * Per connection × UTC day, how many records share each combination of the filter fields
   * (day-summaries.ts): written with the day's digests; a day without one is counted from its digests.
   */
  daySummaries: '[connectionId+day]',
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
  /**
   * A ledger id → the refund or history record that carries it, and charges' links written before v14
   * (since then a charge's link is its part's `ledgerKeys`).
   */
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
  /**
   * The live generation (v13): one row, `{ id: 'live', generation, cleanup }`. The tables of
   * GENERATION_TABLE_NAMES exist twice, the table itself (slot 0) and `alt_<table>` (slot 1); the cache
   * reads the slot of the live generation's parity, and a restore writes the other one (database.ts).
   */
  liveGeneration: 'id',
  alt_history:
    '[connectionId+key], [connectionId+createdAt], [connectionId+type+createdAt], ' +
    '[connectionId+status+createdAt], [connectionId+storeId+createdAt], ' +
    '[connectionId+currency+createdAt], [connectionId+mode+createdAt], [connectionId+chargeId]',
  alt_historyParts: '[connectionId+day+part], *keys, *refundKeys, *refundTimes, *facets',
  alt_chargeDays: '[connectionId+day]',
  alt_chargeParts: '[connectionId+day+part], *ledgerKeys',
  alt_markDays: '[connectionId+day], [connectionId+changed]',
  alt_dayDigests: '[connectionId+day]',
  alt_dayTokens: '[connectionId+day+part]',
  alt_daySummaries: '[connectionId+day]',
  alt_audit: '++seq, [connectionId+at], *keyTags, *periodTags',
  /**
   * History rows of a cache written by schema 6 or older, with the indexes they had: opening it renamed
   * its `history` here (v17, migrations/legacy-history.ts), and legacy-move.ts files them in day parts in
   * the background, deleting each as it is filed. Empty once moved, and in every other cache.
   */
  legacyHistory:
    '[connectionId+key], [connectionId+createdAt], [connectionId+type+createdAt], ' +
    '[connectionId+status+createdAt], [connectionId+storeId+createdAt], ' +
    '[connectionId+currency+createdAt], [connectionId+mode+createdAt], [connectionId+chargeId], ' +
    '*searchTokens',
  /**
   * A restore's staging copies of the small tables (v9, v10; v13 dropped those of the generation tables):
   * filled by a restore, then copied into the tables above by its switch. The staged charges are the
   * file's rows, filed in the next generation's charge days and parts before the switch.
   */
  staged_connections: 'id',
  staged_stores: '[connectionId+storeId]',
  staged_charges: '[connectionId+id], [connectionId+createdAt]',
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

/**
 * The tables a restore writes in bulk: each exists in two slots, and the live generation's parity says
 * which one the cache reads (database.ts). Everything a restore brings per record is here, so its switch
 * moves the live generation instead of copying rows.
 */
export const GENERATION_TABLE_NAMES = [
  'history',
  'historyParts',
  'chargeDays',
  'chargeParts',
  'markDays',
  'dayDigests',
  'dayTokens',
  'daySummaries',
  'audit',
] as const satisfies readonly TableName[]
export type GenerationTableName = (typeof GENERATION_TABLE_NAMES)[number]

/** Every table, in a fixed order (whole-cache transactions: backup, restore). */
export const TABLE_NAMES = [
  'connections',
  'stores',
  'history',
  'historyParts',
  'charges',
  'chargeDays',
  'chargeParts',
  'markDays',
  'dayDigests',
  'dayTokens',
  'daySummaries',
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
