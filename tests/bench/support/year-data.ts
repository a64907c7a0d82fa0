/**
 * The year the in-page suites fill their caches with: the sandbox's generator over November 2025 to
 * October 2026, five stores, about `wanted` history records (it adds ~7.5 % refunds on top of the charges),
 * and the names its serializer gives the items.
 */
import { Dataset } from '../../../electron/sandbox/dataset'
import { usFromIso } from '../../../electron/sandbox/model'
import type { Names } from '../../../electron/sandbox/serialize'

export const YEAR_FROM = '2025-11-01T00:00:00Z'
export const YEAR_TO = '2026-11-01T00:00:00Z'

export function yearOfData(seed: number, wanted: number): { data: Dataset; names: Names } {
  const data = new Dataset({
    seed,
    stores: 5,
    records: Math.round(wanted / 1.075),
    fromUs: usFromIso(YEAR_FROM) ?? 0,
    toUs: usFromIso(YEAR_TO) ?? 0,
  })
  const storeNames = new Map(data.stores.map((s) => [s.id, s.name]))
  return { data, names: { merchant: data.merchant, storeName: (id) => storeNames.get(id) ?? '' } }
}
