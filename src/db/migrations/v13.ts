/**
 * Version 13 (frozen), "restore generations": a restore writes the records and their day rows once, into
 * the slot of the tables the cache is not reading, and a small transaction makes that slot the live one.
 * Adds the second slot of each table a restore writes in bulk (`alt_<table>`, the same indexes as the
 * table) and `liveGeneration` (one row: the live generation; its parity names the slot), and drops the
 * staging copies those tables no longer need. New empty tables and dropped empty ones: opening a v12
 * cache converts nothing, and its rows stay in slot 0, generation 0.
 */
import type { MigrationStep } from './step'

export const v13: MigrationStep = {
  version: 13,
  stores: {
    connections: 'id',
    stores: '[connectionId+storeId]',
    history:
      '[connectionId+key], [connectionId+createdAt], [connectionId+type+createdAt], ' +
      '[connectionId+status+createdAt], [connectionId+storeId+createdAt], ' +
      '[connectionId+currency+createdAt], [connectionId+mode+createdAt], [connectionId+chargeId]',
    charges: '[connectionId+id], [connectionId+createdAt]',
    chargeDays: '[connectionId+day]',
    chargeParts: '[connectionId+day+part]',
    markDays: '[connectionId+day], [connectionId+changed]',
    dayDigests: '[connectionId+day]',
    dayTokens: '[connectionId+day+part]',
    audit: '++seq, [connectionId+at], *keyTags, *periodTags',
    checkpoints: '[connectionId+partitionId]',
    locks: '[connectionId+period]',
    settings: 'key',
    imports: '[connectionId+id], [connectionId+hash]',
    importedRows: '[connectionId+importId+line], [connectionId+importId], [connectionId+day]',
    quarantine: '[connectionId+id]',
    payoutTransfers: '[connectionId+id], [connectionId+createdAt]',
    payoutLedgers: '[connectionId+id], [connectionId+transferKey], [connectionId+createdAt]',
    payoutStatusChanges: '[connectionId+id], [connectionId+transferId]',
    payoutBankAccounts: '[connectionId+id]',
    payoutConfig: 'connectionId',
    payoutSync: 'connectionId',
    payoutQuarantine: '[connectionId+id]',
    ledgerLinks: '[connectionId+ledgerId], [connectionId+recordId]',
    teamOutbox: '++id, &key, merchant',
    teamRefused: '++id, merchant',
    teamAudit: '[merchant+seq]',
    teamState: 'merchant',
    liveGeneration: 'id',
    alt_history:
      '[connectionId+key], [connectionId+createdAt], [connectionId+type+createdAt], ' +
      '[connectionId+status+createdAt], [connectionId+storeId+createdAt], ' +
      '[connectionId+currency+createdAt], [connectionId+mode+createdAt], [connectionId+chargeId]',
    alt_chargeDays: '[connectionId+day]',
    alt_chargeParts: '[connectionId+day+part]',
    alt_markDays: '[connectionId+day], [connectionId+changed]',
    alt_dayDigests: '[connectionId+day]',
    alt_dayTokens: '[connectionId+day+part]',
    alt_audit: '++seq, [connectionId+at], *keyTags, *periodTags',
    staged_connections: 'id',
    staged_stores: '[connectionId+storeId]',
    staged_history: null,
    staged_charges: '[connectionId+id], [connectionId+createdAt]',
    staged_chargeDays: null,
    staged_chargeParts: null,
    staged_markDays: null,
    staged_dayDigests: null,
    staged_dayTokens: null,
    staged_audit: null,
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
  },
}
