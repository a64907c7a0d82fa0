/**
 * Version 14 (frozen), "ledger links in charge parts": a charge part carries the ledger ids of its charges
 * (`ledgerKeys`, `[connectionId, ledgerId]` each) under a multi-entry index, in both slots, so a first
 * sync no longer writes a `ledgerLinks` row per charge. Only an index is added: parts written before have
 * no `ledgerKeys` and get no entry, and their charges' links stay rows of `ledgerLinks`, which the readers
 * still consult. Opening a v13 cache converts nothing.
 */
import type { MigrationStep } from './step'

export const v14: MigrationStep = {
  version: 14,
  stores: {
    connections: 'id',
    stores: '[connectionId+storeId]',
    history:
      '[connectionId+key], [connectionId+createdAt], [connectionId+type+createdAt], ' +
      '[connectionId+status+createdAt], [connectionId+storeId+createdAt], ' +
      '[connectionId+currency+createdAt], [connectionId+mode+createdAt], [connectionId+chargeId]',
    charges: '[connectionId+id], [connectionId+createdAt]',
    chargeDays: '[connectionId+day]',
    chargeParts: '[connectionId+day+part], *ledgerKeys',
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
    alt_chargeParts: '[connectionId+day+part], *ledgerKeys',
    alt_markDays: '[connectionId+day], [connectionId+changed]',
    alt_dayDigests: '[connectionId+day]',
    alt_dayTokens: '[connectionId+day+part]',
    alt_audit: '++seq, [connectionId+at], *keyTags, *periodTags',
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
  },
}
