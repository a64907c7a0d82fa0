/**
 * What keeping a history record's `raw` as JSON text saves, per row, in Chromium's IndexedDB: day parts of
 * 512 rows (tests/bench/browser/raw-text-entry.ts) put and read back with `raw` as an object (today), as
 * text beside every derived field, and as columns (an array per field, an array of texts); read without
 * parsing and with a JSON.parse of every row, and read as a backup line's payload (stringified from the
 * object, or the stored text). Each phase's cost is Chromium's CPU from /proc, per row; layouts alternate,
 * each in a fresh profile; the IndexedDB files' size after the writes, per row. One JSON line per layout
 * and round. Run alone (docs/benchmarks.md has the figures):
 *
 *   npx tsx tests/bench/raw-text-bench.ts [records=51200] [rounds=2]
 */
import { loadavg } from 'node:os'
import { readdirSync, statSync } from 'node:fs'
import { join, resolve } from 'node:path'
import type { Page } from '@playwright/test'
import { Dataset } from '../../electron/sandbox/dataset'
import { usFromIso } from '../../electron/sandbox/model'
import { historyItem, type Names } from '../../electron/sandbox/serialize'
import type { RawLayout, RawTextPhase, RawTextPrepared } from './shared/raw-text-types'
import { runInChromium } from './support/chromium-runner'
import { chromiumOf, treeCpuSeconds } from './support/proc-cpu'

const [records = 51_200, rounds = 2] = process.argv.slice(2).map(Number)

async function main(): Promise<void> {
  const data = new Dataset({
    seed: 7,
    stores: 3,
    records: Math.ceil(records / 1.06),
    fromUs: usFromIso('2026-09-01T00:00:00Z') ?? 0,
    toUs: usFromIso('2026-11-01T00:00:00Z') ?? 0,
  })
  const storeNames = new Map(data.stores.map((s) => [s.id, s.name]))
  const names: Names = { merchant: data.merchant, storeName: (id) => storeNames.get(id) ?? '' }
  const items = JSON.stringify(data.history.slice(0, records).map((e) => historyItem(e, names)))
  const loadAvg = (): string => (loadavg()[0] ?? 0).toFixed(1)
  for (let round = 0; round < rounds; round++)
    for (const layout of ['object', 'text', 'columns'] as RawLayout[]) {
      const load = loadAvg()
      const out = await runInChromium<Record<string, unknown>>(
        resolve(__dirname, 'browser/raw-text-entry.ts'),
        null,
        {
          timeoutMs: 1_800_000,
          expose: { __items: () => items },
          drive: async (page: Page, profile: string) => {
            const cpu = (): number => treeCpuSeconds(chromiumOf(profile))
            const prep = await page.evaluate((l) => (window as unknown as Page_).__prepare(l), layout)
            const phase = async (name: Phase, parse = false): Promise<[string, object]> => {
              const before = cpu()
              const r = await page.evaluate(([f, x]) => (window as unknown as Page_)[f](x), [
                name,
                parse,
              ] as const)
              const cpuS = cpu() - before
              const label = name === '__read' ? (parse ? 'getAll+parse' : 'getAll') : name.slice(2)
              return [
                label,
                {
                  cpuUsPerRow: Math.round((cpuS * 1e6) / r.rows),
                  wallUsPerRow: Math.round((r.ms * 1000) / r.rows),
                },
              ]
            }
            const phases: [string, object][] = []
            phases.push(await phase('__put'))
            const diskBytes = bytesUnder(join(profile, 'Default', 'IndexedDB'))
            phases.push(await phase('__read'))
            phases.push(await phase('__read', true))
            phases.push(await phase('__readAsText'))
            const again = await phase('__read')
            phases.push([`${again[0]} (again)`, again[1]])
            return {
              layout,
              round: round + 1,
              load: `${load}→${loadAvg()}`,
              rows: prep.rows,
              jsonCharsPerRow: Math.round(prep.jsonChars / prep.rows),
              diskBytesPerRow: Math.round(diskBytes / prep.rows),
              buildUsPerRow: Math.round((prep.buildMs * 1000) / prep.rows),
              ...Object.fromEntries(phases),
            }
          },
        },
      )
      process.stdout.write(`${JSON.stringify(out)}\n`)
    }
}

/** Bytes of the files under `dir` (IndexedDB's LevelDB files, after the writes: compaction may lag). */
function bytesUnder(dir: string): number {
  let sum = 0
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, e.name)
    try {
      sum += e.isDirectory() ? bytesUnder(path) : statSync(path).size
    } catch {
      // a file compaction removed meanwhile
    }
  }
  return sum
}

type Phase = '__put' | '__read' | '__readAsText'
/** The page's functions (raw-text-entry.ts). */
type Page_ = Record<Phase, (parse: boolean) => Promise<RawTextPhase>> & {
  __prepare: (layout: RawLayout) => Promise<RawTextPrepared>
}

void main()
