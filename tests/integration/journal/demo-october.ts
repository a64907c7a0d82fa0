/** The demo's October (seed 42, 3 stores, 5,000 records, Jul–Oct 2026) as the cache holds it after a sync. */
import { Dataset } from '../../../electron/sandbox/dataset'
import { usFromIso } from '../../../electron/sandbox/model'
import { chargeItem, historyItem, type Names } from '../../../electron/sandbox/serialize'
import { DEFAULT_FROM, DEFAULT_TO } from '../../../electron/sandbox/server'
import type { ChargeItem, HistoryItem } from '../../../electron/shared/payment-api'
import { chargeRecordOf } from '../../../src/db/charge-record'
import { historyRecordOf } from '../../../src/db/history-record'
import type { ChargeRecord, HistoryRecord } from '../../../src/domain/records'

export const TZ = 'Asia/Tokyo'
export const PERIOD = '2026-10'

export function demoMonth(): {
  history: HistoryRecord[]
  charges: ChargeRecord[]
  storeNames: Map<string, string>
} {
  const data = new Dataset({
    seed: 42,
    stores: 3,
    records: 5000,
    fromUs: usFromIso(DEFAULT_FROM) ?? 0,
    toUs: usFromIso(DEFAULT_TO) ?? 0,
  })
  const storeNames = new Map(data.stores.map((s) => [s.id, s.name]))
  const names: Names = { merchant: data.merchant, storeName: (id) => storeNames.get(id) ?? '' }
  return {
    history: data.history.map((e) =>
      historyRecordOf('demo', historyItem(e, names) as unknown as HistoryItem, 0),
    ),
    charges: data.charges.map((c) =>
      chargeRecordOf('demo', chargeItem(c, names) as unknown as ChargeItem, 0),
    ),
    storeNames,
  }
}
