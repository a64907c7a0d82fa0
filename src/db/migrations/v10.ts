/**
 * Version 10 (frozen), "charge days": the charge list is stored in parts of up to 100 charges
 * per connection × UTC day (`chargeParts`) with a row per day saying which part holds which charge
 * (`chargeDays`), and their staging copies; the staged charges get a time index (a restore files their
 * day rows a day at a time). New empty tables and an index on an always-empty staging table: opening a
 * v9 cache converts nothing, and its `charges` rows are still read (by id and time) until sync rewrites
 * them into parts.
 */
import type { MigrationStep } from './step'

export const v10: MigrationStep = {
  version: 10,
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
  },
}
