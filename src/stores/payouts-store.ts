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
import {
  readPayoutReadingSetting,
  resetPayoutReadingSetting,
  savePayoutReadingSetting,
  type PayoutReadingSetting,
} from './payout-readings-setting'
import { buildPayoutsView, type PayoutsViewModel } from './payouts-view-model'
import { sharedDepositTie } from './deposit-tie'
import type { PayoutReadings } from '../domain/payouts'

export const usePayoutsStore = defineStore('payouts', () => {
  const model = shallowRef<PayoutsViewModel | null>(null)
  const state = shallowRef<PayoutSyncState | null>(null)
  const loading = ref(false)
  const error = ref<AppError | null>(null)
  /** The connection's readings where the data cannot tell, and its transfer fee per currency. */
  const setting = shallowRef<PayoutReadingSetting | null>(null)

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
      setting.value = await readPayoutReadingSetting(connectionId)
      const connection = await appCache().connections.get(connectionId)
      const tie = connection ? await sharedDepositTie(connection) : null
      model.value = buildPayoutsView({
        ...(tie ? { repayments: tie.repayments.list } : {}),
        setting: setting.value.readings.ledgerAmounts,
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

  /**
   * Saves the connection's setting and reads the payouts again by it; a refused value throws
   * (PayoutReadingSettingError names the field) and saves nothing.
   */
  async function saveSetting(
    connectionId: string,
    readings: PayoutReadings,
    fees: readonly { currency: string; fee: number }[],
  ): Promise<void> {
    await savePayoutReadingSetting(connectionId, readings, fees)
    await load(connectionId)
  }

  async function resetSetting(connectionId: string): Promise<void> {
    await resetPayoutReadingSetting(connectionId)
    await load(connectionId)
  }

  return { model, state, setting, loading, error, load, saveSetting, resetSetting }
})
