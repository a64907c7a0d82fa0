/** Version 3 (frozen): imported order and bank files and their rows, for matching. New tables only. */
import type { MigrationStep } from './step'

export const v3: MigrationStep = {
  version: 3,
  stores: {
    connections: 'id',
    stores: '[connectionId+storeId]',
    history:
      '[connectionId+key], [connectionId+createdAt], [connectionId+type+createdAt], ' +
      '[connectionId+status+createdAt], [connectionId+storeId+createdAt], ' +
      '[connectionId+currency+createdAt], [connectionId+mode+createdAt], [connectionId+chargeId]',
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
