/**
 * Version 11 (frozen), payouts: the service's transfers, their ledgers (indexed by the transfer they
 * belong to; `transferKey` is '' while a ledger waits for one, since IndexedDB cannot index null), status
 * changes, masked bank accounts, the merchant's payout configuration, the payout sync's own state and
 * quarantine, and `ledgerLinks` from a ledger id to the charge or refund that carries it. Their restore
 * staging copies come with them. New empty tables only: opening a v10 cache converts nothing.
 */
import type { MigrationStep } from './step'

export const v11: MigrationStep = {
  version: 11,
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
