/**
 * Version 16 (frozen), "day summaries": per connection × UTC day, how many of the day's records share each
 * combination of the filter fields (`daySummaries`, and its second slot `alt_daySummaries`), written with
 * the day's digests, so a count over whole days reads a small row per day instead of the day's digests.
 * Only new empty tables: opening a v15 cache converts nothing, and a day without a summary row is counted
 * from its digests, as before.
 */
import type { MigrationStep } from './step'

export const v16: MigrationStep = {
  version: 16,
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
    daySummaries: '[connectionId+day]',
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
    alt_daySummaries: '[connectionId+day]',
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
