/**
 * The ledger's counts of one month at a month's size, without a 2M fill: `npx tsx tests/bench/count-probe.ts
 * [records]` fills Chromium's IndexedDB with `records` (default 170,000) history records of the sandbox's
 * generator all created in September 2026 (Asia/Tokyo), through putPage in pages of 5,000, then runs each
 * month count cold (nothing held in memory) and warm, three rounds, and prints every count's wall time and
 * Chromium's CPU seconds (all its processes, from /proc) as one JSON line. Not part of `npm run bench`:
 * the scale suite's `scale.ledger_count_ms` is the figure of record; this measures the same counts where a
 * month holds what a 2M year's month does, in a few minutes.
 */
import { resolve } from 'node:path'
import { serialize } from 'node:v8'
import { Dataset } from '../../electron/sandbox/dataset'
import { historyItem } from '../../electron/sandbox/serialize'
import type { HistoryItem } from '../../electron/shared/payment-api'
import { dayTokenRowsOf, tokenColumnsOf } from '../../src/db/day-tokens'
import { historyRecordOf } from '../../src/db/history-record'
import { periodRange } from '../../src/domain/periods'
import { oldMarkedTokenRow, oldPackedTokenRow } from '../support/token-layouts'
import type { CountProbeArgs, CountProbeResult } from './shared/count-probe-types'
import { runInChromium } from './support/chromium-runner'
import { treeCpuSeconds } from './support/proc-cpu'

const MONTH = '2026-09'
const TIME_ZONE = 'Asia/Tokyo'

async function main(): Promise<void> {
  const wanted = Number(process.argv[2] ?? 170_000)
  const month = periodRange(MONTH, TIME_ZONE)
  const data = new Dataset({
    seed: 404,
    stores: 5,
    records: Math.round(wanted / 1.075),
    fromUs: month.from * 1000,
    toUs: month.to * 1000 - 1,
  })
  const storeNames = new Map(data.stores.map((s) => [s.id, s.name]))
  const names = { merchant: data.merchant, storeName: (id: string) => storeNames.get(id) ?? '' }
  const sample = data.history.find((e) => /^[A-Za-z]+ [A-Za-z]+$/.test(e.charge.card.name))
  const args: CountProbeArgs = {
    records: data.history.length,
    storeId: data.stores[0]?.id ?? '',
    searchTerm: sample?.charge.card.name ?? 'tanaka',
    month: MONTH,
    timeZone: TIME_ZONE,
    rounds: 3,
  }
  const cpu: Record<string, number> = {}
  const chromium = (_pid: number, p: { ppid: number; cmd: string }): boolean =>
    p.ppid === process.pid && /chrom/i.test(p.cmd) && !p.cmd.includes('--type=')
  let mark: { stage: string; at: number } | null = null
  const started = Date.now()
  const result = await runInChromium<CountProbeResult>(resolve(__dirname, 'browser/count-entry.ts'), args, {
    timeoutMs: 1_800_000,
    expose: {
      __stage: (stage: string) => {
        const now = treeCpuSeconds(chromium)
        if (mark) cpu[mark.stage] = Math.round((now - mark.at) * 100) / 100
        mark = { stage, at: now }
        process.stderr.write(`count probe: ${stage} (${Math.round((Date.now() - started) / 1000)} s)\n`)
      },
      __items: (offset: number, count: number) =>
        JSON.stringify(data.history.slice(offset, offset + count).map((e) => historyItem(e, names))),
    },
  })
  const counts = result.counts.map((c) => ({ ...c, cpuS: cpu[c.name] }))
  const tokenBytes = tokenBytesPerRecord(data.history.map((e) => historyItem(e, names) as HistoryItem))
  console.log(JSON.stringify({ records: args.records, searchTerm: args.searchTerm, tokenBytes, counts }))
}

/**
 * Bytes per record of the month's search token parts as V8 serializes them (what IndexedDB stores and a
 * read clones), in the layout the writer stores and in the layouts before it.
 */
function tokenBytesPerRecord(items: readonly HistoryItem[]): Record<string, number> {
  const rows = dayTokenRowsOf(items.map((item) => historyRecordOf('bench-connection', item, 0)))
  const bytes = (layout: (row: (typeof rows)[number]) => unknown): number =>
    Math.round((rows.reduce((n, row) => n + serialize(layout(row)).length, 0) / items.length) * 10) / 10
  return {
    stored: bytes((row) => row),
    markedBeforeIds: bytes((row) => ('latin' in row ? oldMarkedTokenRow(row) : row)),
    packed: bytes((row) => oldPackedTokenRow(tokenColumnsOf(row))),
    plain: bytes((row) => tokenColumnsOf(row)),
  }
}

main().catch((error: unknown) => {
  console.error(error)
  process.exit(1)
})
