/**
 * Version 9 (frozen), "restore staging": a staging copy of each table a restore writes, keyed
 * like the real one, with no other index but history's time (the restore files day rows a day at a time).
 * A restore fills them and then copies them into the real tables in one transaction (backup-stream.ts), so
 * a restore that stops half-way leaves the cache as it was. New empty tables: opening a v8 cache converts
 * nothing.
 */
import type { MigrationStep } from './step'

export const v9: MigrationStep = {
  version: 9,
  stores: {
    connections: 'id',
    stores: '[connectionId+storeId]',
    history:
      '[connectionId+key], [connectionId+createdAt], [connectionId+type+createdAt], ' +
      '[connectionId+status+createdAt], [connectionId+storeId+createdAt], ' +
      '[connectionId+currency+createdAt], [connectionId+mode+createdAt], [connectionId+chargeId]',
    charges: '[connectionId+id], [connectionId+createdAt]',
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
    staged_charges: '[connectionId+id]',
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
