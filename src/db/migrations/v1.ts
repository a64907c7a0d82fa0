/** Version 1 (frozen): the first schema. History without searchText/orderRef; marks one row per record. */
import type { MigrationStep } from './step'

export const v1: MigrationStep = {
  version: 1,
  stores: {
    connections: 'id',
    stores: '[connectionId+storeId]',
    history:
      '[connectionId+key], [connectionId+createdAt], [connectionId+type+createdAt], ' +
      '[connectionId+status+createdAt], [connectionId+storeId+createdAt], [connectionId+chargeId]',
    charges: '[connectionId+id], [connectionId+createdAt]',
    marks: '[connectionId+key], [connectionId+period]',
    audit: '++seq, [connectionId+at], [connectionId+period], [connectionId+key]',
    checkpoints: '[connectionId+partitionId]',
    locks: '[connectionId+period]',
    settings: 'key',
  },
}
