/**
 * Version 4 (frozen): the ledger's search through a multi-entry index of search tokens scoped by
 * connection. No upgrade of its own: version 5 re-files the tokens by day, so opening a v3 cache
 * computes them once, in v5's form (v5.ts); a cache stopped at v4 has them re-filed by v5.
 */
import type { MigrationStep } from './step'

export const v4: MigrationStep = {
  version: 4,
  stores: {
    connections: 'id',
    stores: '[connectionId+storeId]',
    history:
      '[connectionId+key], [connectionId+createdAt], [connectionId+type+createdAt], ' +
      '[connectionId+status+createdAt], [connectionId+storeId+createdAt], ' +
      '[connectionId+currency+createdAt], [connectionId+mode+createdAt], [connectionId+chargeId], ' +
      '*searchTokens',
    charges: '[connectionId+id], [connectionId+createdAt]',
    marks:
      '[connectionId+key], [connectionId+period], [connectionId+state], [connectionId+changedSinceReconciled]',
    audit: '++seq, [connectionId+at], [connectionId+period], [connectionId+key]',
    checkpoints: '[connectionId+partitionId]',
    locks: '[connectionId+period]',
    settings: 'key',
    imports: '[connectionId+id], [connectionId+hash]',
    importedRows: '[connectionId+importId+line], [connectionId+importId], [connectionId+day]',
  },
}
