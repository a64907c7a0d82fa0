/**
 * The sync engine's store port in memory, for engine tests: the plan, the history records by id and the
 * quarantined items by id, each page written with its checkpoint as the real store does.
 */
import type { QuarantinedItem } from '../../../../electron/shared/contract/api'
import type { HistoryItem } from '../../../../electron/shared/payment-api'
import type { SyncCheckpoint } from '../../../../src/domain/records'
import type { SyncStorePort } from '../../../../src/sync/sync-engine'

export function memoryStore() {
  let plan: SyncCheckpoint[] = []
  const records = new Map<string, HistoryItem>()
  const quarantine = new Map<string, QuarantinedItem>()
  const store: SyncStorePort = {
    loadPlan: () => Promise.resolve(plan),
    savePlan: (_c, p) => {
      plan = p.map((cp) => ({ ...cp }))
      return Promise.resolve()
    },
    putPage: (page, cp) => {
      if (page.resource === 'transaction_history') for (const i of page.items) records.set(i.resource_id, i)
      for (const q of page.quarantined ?? []) quarantine.set(q.itemId ?? '', q)
      plan = plan.map((p) => (p.partitionId === cp.partitionId ? { ...cp } : p))
      return Promise.resolve({ added: page.items.length, changedKeys: [] })
    },
    staleRefundedCharges: () => Promise.resolve([]),
    finishRun: () => {
      plan = []
      return Promise.resolve()
    },
  }
  return { store, records, quarantine, plan: () => plan }
}
