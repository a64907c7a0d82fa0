/**
 * What the grid shows beside each loaded row: its mark, its charge's fee and its store's name, read with
 * the rows and merged into maps the grid reads (each map is replaced, never mutated, so the grid updates).
 */
import { shallowRef, type ShallowRef } from 'vue'
import { appCache } from '../../db/cache'
import type { HistoryRecord, MarkRecord, RecordKey } from '../../domain/records'
import type { ChargeFee } from '../../reconcile/row-figures'

export interface RowFacts {
  marks: ShallowRef<Map<RecordKey, MarkRecord>>
  /** Fee facts of the loaded charge rows, by charge id, from the charge list. */
  fees: ShallowRef<Map<string, ChargeFee>>
  storeNames: ShallowRef<Map<string, string>>
  /** Marks, fees and store names of loaded rows, merged into the maps. */
  loadFacts: (connectionId: string, page: readonly HistoryRecord[]) => Promise<void>
  /** A mark write's outcome, applied to the marks map in one replacement. */
  updateMarks: (puts: readonly MarkRecord[], deletes: readonly RecordKey[]) => void
}

export function useRowFacts(): RowFacts {
  const marks = shallowRef(new Map<RecordKey, MarkRecord>())
  const fees = shallowRef(new Map<string, ChargeFee>())
  const storeNames = shallowRef(new Map<string, string>())

  async function loadFacts(connection: string, page: readonly HistoryRecord[]): Promise<void> {
    const cache = appCache()
    const [pageMarks, charges] = await Promise.all([
      cache.marks.getMany(connection, page),
      cache.charges.ofChargeRows(connection, page),
    ])
    const nextMarks = new Map(marks.value)
    page.forEach((r, i) => {
      const m = pageMarks[i]
      if (m) nextMarks.set(r.key, m)
      else nextMarks.delete(r.key)
    })
    marks.value = nextMarks
    const nextFees = new Map(fees.value)
    charges.forEach((c) => nextFees.set(c.id, { feeAmount: c.feeAmount, feeCurrency: c.feeCurrency }))
    fees.value = nextFees
    const names = new Map(storeNames.value)
    let added = false
    for (const r of page)
      if (!names.has(r.storeId) && r.raw.store_name) {
        names.set(r.storeId, r.raw.store_name)
        added = true
      }
    if (added) storeNames.value = names
  }

  function updateMarks(puts: readonly MarkRecord[], deletes: readonly RecordKey[]): void {
    const next = new Map(marks.value)
    for (const m of puts) next.set(m.key, m)
    for (const k of deletes) next.delete(k)
    marks.value = next
  }

  return { marks, fees, storeNames, loadFacts, updateMarks }
}
