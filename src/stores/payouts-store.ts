/**
 * The Payouts view's data: the selected connection's cached payouts as a view model
 * (payouts-view-model.ts), and whether payouts could be read at all (a 403 says what to do).
 */
import { defineStore } from 'pinia'
import { ref, shallowRef } from 'vue'
import { appCache } from '../db/cache'
import type { PayoutSyncState } from '../db/payout-rows'
import { PayoutsRepository } from '../db/payouts-repository'
import { toAppError, type AppError } from '../platform/app-error'
import { buildPayoutsView, type PayoutsViewModel } from './payouts-view-model'

export const usePayoutsStore = defineStore('payouts', () => {
  const model = shallowRef<PayoutsViewModel | null>(null)
  const state = shallowRef<PayoutSyncState | null>(null)
  const loading = ref(false)
  const error = ref<AppError | null>(null)

  async function load(connectionId: string): Promise<void> {
    loading.value = true
    error.value = null
    try {
      const repo = new PayoutsRepository(appCache().db)
      const transfers = await repo.allTransfers(connectionId)
      const ledgersByTransfer = new Map(
        await Promise.all(
          transfers.map(async (t) => [t.id, await repo.ledgersOfTransfer(connectionId, t.id)] as const),
        ),
      )
      const changesByTransfer = new Map(
        await Promise.all(
          transfers.map(async (t) => [t.id, await repo.statusChanges(connectionId, t.id)] as const),
        ),
      )
      const open = await repo.openLedgers(connectionId)
      const ids = [...[...ledgersByTransfer.values()].flat(), ...open].map((l) => l.id)
      const records = await repo.recordsByLedgerIds(connectionId, ids)
      const quarantined = await repo.quarantined(connectionId)
      state.value = await repo.syncState(connectionId)
      model.value = buildPayoutsView({
        transfers,
        ledgersByTransfer,
        changesByTransfer,
        open,
        records,
        quarantined,
      })
    } catch (e) {
      error.value = toAppError(e)
    } finally {
      loading.value = false
    }
  }

  return { model, state, loading, error, load }
})
