/**
 * Version 12 (frozen), "team workspace": four empty tables for the optional team workspace on PostgreSQL.
 * `teamOutbox` holds writes not yet answered by the server, each with its idempotency key; `teamRefused`
 * the writes the server refused, with its reason and state, for the user; `teamAudit` the server's audit
 * rows pulled so far per merchant (service merchant id and mode); `teamState` per merchant the last verified
 * audit number and hash and the server versions of the marks. New empty tables: opening a v11 cache
 * converts nothing.
 */
import type { MigrationStep } from './step'

export const v12: MigrationStep = {
  version: 12,
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
  },
}
