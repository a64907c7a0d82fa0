/**
 * The data the in-page suites fill their caches with: the sandbox's generator over November 2025 to
 * October 2026 (or one month of it), five stores, about `wanted` history records (it adds ~7.5 % refunds on top of the charges),
 * and the names its serializer gives the items.
 */
import { Dataset } from '../../../electron/sandbox/dataset'
import { usFromIso } from '../../../electron/sandbox/model'
import { periodRange } from '../../../src/domain/periods'
import type { Names } from '../../../electron/sandbox/serialize'

export const YEAR_FROM = '2025-11-01T00:00:00Z'
export const YEAR_TO = '2026-11-01T00:00:00Z'

export function yearOfData(seed: number, wanted: number): { data: Dataset; names: Names } {
  return dataOf(seed, wanted, usFromIso(YEAR_FROM) ?? 0, usFromIso(YEAR_TO) ?? 0)
}

/**
 * One dense month: about `wanted` history records created within `period` in `timeZone` (a refund of a
 * charge late in the month may fall after it), as a merchant's busiest month holds them.
 */
export function monthOfData(
  seed: number,
  wanted: number,
  period: string,
  timeZone: string,
): { data: Dataset; names: Names } {
  const { from, to } = periodRange(period, timeZone)
  return dataOf(seed, wanted, from * 1000, to * 1000)
}

function dataOf(seed: number, wanted: number, fromUs: number, toUs: number): { data: Dataset; names: Names } {
  const data = new Dataset({ seed, stores: 5, records: Math.round(wanted / 1.075), fromUs, toUs })
  const storeNames = new Map(data.stores.map((s) => [s.id, s.name]))
  return { data, names: { merchant: data.merchant, storeName: (id) => storeNames.get(id) ?? '' } }
}
