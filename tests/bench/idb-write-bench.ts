/**
 * What Chromium's IndexedDB charges for the rows a first sync writes, by storage layout: the e2e sync's
 * size (50,000 charges over 3 stores: ~53k history and 50k charge records), each layout in a fresh
 * profile, twice, the faster run kept. It separates the cost of a row from the cost of an index entry and
 * of the payload's bytes, which is what choosing a lever for `sync.e2e_ceiling_ratio` needs:
 * the e2e bench sees only the sum, on a machine whose two cores the browser process already saturates.
 * `--quick`: 10,000 charges.
 */
import { resolve } from 'node:path'
import { Dataset } from '../../electron/sandbox/dataset'
import { usFromIso } from '../../electron/sandbox/model'
import { chargeItem, historyItem, type Names } from '../../electron/sandbox/serialize'
import { measured, type MetricMap } from './metrics'
import type { IdbWriteArgs, IdbWriteResult } from './shared/idb-write-types'
import { runInChromium } from './support/chromium-runner'

const LAYOUTS = ['current', 'fewerIndexes', 'primaryOnly', 'rawAsText', 'noRaw', 'chargesGrouped'] as const

export async function benchIdbWrite({ quick }: { quick: boolean }): Promise<MetricMap> {
  const data = new Dataset({
    seed: 7,
    stores: 3,
    records: quick ? 10_000 : 50_000,
    fromUs: usFromIso('2026-09-01T00:00:00Z') ?? 0,
    toUs: usFromIso('2026-11-01T00:00:00Z') ?? 0,
  })
  const storeNames = new Map(data.stores.map((s) => [s.id, s.name]))
  const names: Names = { merchant: data.merchant, storeName: (id) => storeNames.get(id) ?? '' }
  const items = {
    history: JSON.stringify(data.history.map((e) => historyItem(e, names))),
    charges: JSON.stringify(data.charges.map((c) => chargeItem(c, names))),
  }
  const best = new Map<string, IdbWriteResult>()
  for (let round = 0; round < 2; round++)
    for (const layout of LAYOUTS) {
      process.stderr.write(`bench: idb-write: ${layout} (round ${round + 1})\n`)
      const args: IdbWriteArgs = { layout }
      const r = await runInChromium<IdbWriteResult>(resolve(__dirname, 'browser/idb-write-entry.ts'), args, {
        timeoutMs: 600_000,
        expose: { __items: (kind: 'history' | 'charges') => items[kind] },
      })
      const seen = best.get(layout)
      if (!seen || r.ms < seen.ms) best.set(layout, r)
    }
  const get = (l: (typeof LAYOUTS)[number]): IdbWriteResult => {
    const r = best.get(l)
    if (!r) throw new Error(`layout ${l} did not run`)
    return r
  }
  const current = get('current')
  const primary = get('primaryOnly')
  const perRowUs = (primary.ms * 1000) / primary.rows
  const perEntryUs =
    ((current.ms - primary.ms) * 1000) / Math.max(1, current.indexEntries - primary.indexEntries)
  const s = (ms: number) => `${Math.round(ms / 100) / 10} s`
  const layouts = LAYOUTS.map((l) => `${l} ${s(get(l).ms)}`).join(', ')
  const on = `${current.rows} rows (${data.history.length} history, ${data.charges.length} charges), transactions of 800, fresh Chromium profile per layout, faster of 2 runs`
  return {
    'idb.write_current_s': measured(
      'idb.write_current_s',
      Math.round(current.ms / 100) / 10,
      `today's history and charges tables; layouts: ${layouts}; ${on}`,
    ),
    'idb.write_us_per_row': measured(
      'idb.write_us_per_row',
      Math.round(perRowUs),
      `primary keys only, ${s(primary.ms)} for ${primary.rows} rows; ${on}`,
    ),
    'idb.write_us_per_index_entry': measured(
      'idb.write_us_per_index_entry',
      Math.round(perEntryUs * 10) / 10,
      `(today's layout − primary keys only) ÷ ${current.indexEntries} secondary index entries; ${on}`,
    ),
    'idb.write_charges_grouped_s': measured(
      'idb.write_charges_grouped_s',
      Math.round(get('chargesGrouped').ms / 100) / 10,
      `today's history; the charge list 100 records to a row (${get('chargesGrouped').rows} rows in all); ${on}`,
    ),
  }
}
