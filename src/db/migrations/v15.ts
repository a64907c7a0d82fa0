/**
 * Version 15 (frozen), "history in day parts": `historyParts` (and its generation twin `alt_historyParts`)
 * holds history records in parts of up to 512 per connection × UTC day, found by key, by a charge's
 * refunds, by refund time and by changeable status or mode through multi-entry indexes (history-parts.ts).
 * Only tables are added: rows of `history` stay and keep answering, and leave it when sync writes their
 * records again. Opening a v14 cache converts nothing.
 */
import type { MigrationStep } from './step'

export const v15: MigrationStep = {
  version: 15,
  stores: {
    connections: 'id',
    stores: '[connectionId+storeId]',
    history:
      '[connectionId+key], [connectionId+createdAt], [connectionId+type+createdAt], ' +
      '[connectionId+status+createdAt], [connectionId+storeId+createdAt], ' +
      '[connectionId+currency+createdAt], [connectionId+mode+createdAt], [connectionId+chargeId]',
    charges: '[connectionId+id], [connectionId+createdAt]',
    historyParts: '[connectionId+day+part], *keys, *refundKeys, *refundTimes, *facets',
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
    alt_historyParts: '[connectionId+day+part], *keys, *refundKeys, *refundTimes, *facets',
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
