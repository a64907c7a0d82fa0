/**
 * Version 17 (frozen), "old history set aside": `legacyHistory` holds the history rows of a cache written
 * by schema 6 or older, with the indexes they had (legacy-history.ts). Opening such a cache renames its
 * `history` store to this name inside the version change (constant time, where dropping the version-5
 * search token index from 500k records took minutes), the steps up to here run on an empty `history`,
 * and the rows are then filed in day parts in the background (legacy-move.ts). Every other cache gets the
 * table empty: opening a v16 cache converts nothing.
 */
import { LEGACY_HISTORY_STORE } from './legacy-history'
import type { MigrationStep } from './step'

export const v17: MigrationStep = {
  version: 17,
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
    legacyHistory: LEGACY_HISTORY_STORE,
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
