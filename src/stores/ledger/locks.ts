/**
 * The closed months of the ledger's connection. Only a month filter can be closed or reopened (in
 * Month-end); the ledger shows a banner over a closed one. Writes check the locks again in their own
 * transaction, so this copy is for display.
 */
import { computed, shallowRef, type ComputedRef, type Ref, type ShallowRef } from 'vue'
import { appCache } from '../../db/cache'
import type { PeriodLock } from '../../domain/records'
import type { LedgerFilters } from './filters'

export interface LedgerLocks {
  locks: ShallowRef<Map<string, PeriodLock>>
  /** The month whose lock applies: only a month filter can be closed or reopened. */
  activePeriod: ComputedRef<string | null>
  periodLocked: ComputedRef<boolean>
  loadLocks: () => Promise<void>
}

export function useLedgerLocks(connectionId: Ref<string | null>, filters: LedgerFilters): LedgerLocks {
  const locks = shallowRef(new Map<string, PeriodLock>())
  const activePeriod = computed(() => (filters.periodKind === 'month' ? filters.period : null))
  const periodLocked = computed(() => (activePeriod.value ? locks.value.has(activePeriod.value) : false))

  async function loadLocks(): Promise<void> {
    if (!connectionId.value) return
    const list = await appCache().locks.list(connectionId.value)
    locks.value = new Map(list.map((l) => [l.period, l]))
  }

  return { locks, activePeriod, periodLocked, loadLocks }
}
