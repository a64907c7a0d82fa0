/**
 * The canary credentials go through a sync (with faults, so error paths run too), an offline sync, a
 * connection test, a backup (the streamed format Settings writes) and the month-end workbook; they must appear nowhere the renderer or the user can see: not in what
 * crossed the contract, not in IndexedDB, not in logs, not in error messages, not in the backup file.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import ExcelJS from 'exceljs'
import { DesktopApiError } from '../../../electron/shared/errors'
import { streamBackup } from '../../../src/db/backup-stream'
import type { ClosebookDb } from '../../../src/db/database'
import { exportMonthWorkbook } from '../../../src/export/workbook-client'
import { setDesktopApiForTests } from '../../../src/platform'
import { periodRange } from '../../../src/domain/periods'
import { TABLE_NAMES } from '../../../src/db/database'
import { SyncEngine } from '../../../src/sync/sync-engine'
import { CANARY_SECRET, CANARY_TOKEN, canaryLeaks } from '../../unit/electron/services/support/fixtures'
import { startHarness, type Harness } from '../support/harness'

let h: Harness | undefined

/** The backup file as Settings writes it (format version 2, streamBackup), whole. */
async function streamedBackup(db: ClosebookDb): Promise<string> {
  let text = ''
  for await (const chunk of streamBackup(db)) text += chunk
  return text
}
afterEach(async () => {
  vi.restoreAllMocks()
  await h?.close()
})

describe('credential leak scan', () => {
  it('the canary secret and app token appear nowhere outside main', async () => {
    const logged: string[] = []
    for (const level of ['log', 'info', 'warn', 'error', 'debug'] as const)
      vi.spyOn(console, level).mockImplementation((...args: unknown[]) => {
        logged.push(
          args.map((a) => (a instanceof Error ? `${a.message} ${a.stack ?? ''}` : String(a))).join(' '),
        )
      })
    h = await startHarness({
      seed: 5,
      stores: 2,
      records: 300,
      rateScale: 50,
      secret: CANARY_SECRET,
      appToken: CANARY_TOKEN,
      faults: { failRate: 0.2, dropRate: 0.05, truncateRate: 0.05, badItemRate: 0.05 },
    })
    const errors: string[] = []
    const run = async () => {
      const result = await new SyncEngine({ api: h!.syncApi, store: h!.store }).run({
        scope: {
          connectionId: h!.connectionId,
          storeIds: h!.sandbox.storeIds,
          resources: ['transaction_history', 'charges'],
        },
        since: Date.parse('2026-07-01T00:00:00Z'),
        lookbackMs: 0,
        coveredUntil: (await h!.store.connections.get(h!.connectionId))?.highWater ?? {},
      })
      for (const p of result.partitions) if (p.error) errors.push(p.error.message)
      if (result.error) errors.push(result.error.message)
      return result
    }
    let state = ''
    for (let i = 0; i < 6 && state !== 'done'; i++) state = (await run()).state
    expect(state).toBe('done')
    let tested = false
    for (let i = 0; i < 10 && !tested; i++) {
      tested = await h.api.connections.test({ id: h.connectionId }).then(
        (r) => r.ok,
        (e: unknown) => (errors.push(String(e)), false),
      )
    }
    expect(tested).toBe(true)
    // An incremental run covers from where the last one ended (the next whole second) to now: let that
    // second pass, or a sync as quick as the last one has nothing to fetch and never meets the network.
    const covered = Math.max(
      ...Object.values((await h.store.connections.get(h.connectionId))?.highWater ?? {}),
    )
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, covered - Date.now() + 50)))
    await h.sandbox.close() // offline: network errors on every partition
    expect((await run()).state).toBe('offline')
    await h.api.connections.test({ id: h.connectionId }).catch((e: unknown) => errors.push(String(e)))

    // The month-end workbook of the synced data, through the contract as the renderer writes it.
    setDesktopApiForTests(h.api)
    const conn = await h.store.connections.get(h.connectionId)
    if (!conn) throw new Error('connection not cached')
    const month = await (async () => {
      const range = periodRange('2026-10', conn.timeZone)
      const history = await h.store.history.inRange(conn.id, range.from, range.to)
      return { history, charges: await h.store.charges.inRange(conn.id, range.from, range.to) }
    })()
    const delivered = await exportMonthWorkbook({
      merchantName: month.history[0]?.raw.merchant_name ?? 'x',
      connection: { id: conn.id, label: conn.label, timeZone: conn.timeZone },
      period: '2026-10',
      storeId: null,
      history: month.history,
      charges: month.charges,
      marks: new Map(),
      audit: [],
      generatedAt: Date.now(),
      appVersion: 'test',
    })
    setDesktopApiForTests(undefined)
    if (delivered.savedTo !== 'path') throw new Error('workbook not saved to a path')
    const book = new ExcelJS.Workbook()
    await book.xlsx.readFile(delivered.path)
    const cells: string[] = []
    book.eachSheet((ws) => ws.eachRow((row) => cells.push(JSON.stringify(row.values))))
    expect(cells.length).toBeGreaterThan(month.history.length)

    const dump: string[] = []
    for (const table of TABLE_NAMES) dump.push(JSON.stringify(await h.db.table(table).toArray()))
    const backup = await streamedBackup(h.db)

    expect(errors.length).toBeGreaterThan(0)
    expect(h.wire.length).toBeGreaterThan(10)
    const places: [string, string][] = [
      ['contract traffic', h.wire.join('\n')],
      ['IndexedDB', dump.join('\n')],
      ['logs', logged.join('\n')],
      ['error messages', errors.join('\n')],
      ['backup file', backup],
      ['workbook', cells.join('\n')],
    ]
    // Every place at once, so a failure names each place that leaked (the backup file included).
    const leaks = places.map(([where, text]) => [where, canaryLeaks(text)])
    expect(leaks).toEqual(places.map(([where]) => [where, []]))
    // The scan would see them: the canary is really in use.
    expect(h.sandbox.secret).toBe(CANARY_SECRET)
  }, 120_000)

  it('a server that echoes the Authorization header into pages and error bodies leaks nothing past main', async () => {
    h = await startHarness(
      { seed: 6, stores: 2, records: 200, rateScale: 50, secret: CANARY_SECRET, appToken: CANARY_TOKEN },
      { echoCredentials: true },
    )
    const result = await new SyncEngine({ api: h.syncApi, store: h.store }).run({
      scope: {
        connectionId: h.connectionId,
        storeIds: h.sandbox.storeIds,
        resources: ['transaction_history', 'charges'],
      },
      since: Date.parse('2026-07-01T00:00:00Z'),
      lookbackMs: 0,
      coveredUntil: {},
    })
    expect(result.state).toBe('done')
    expect(h.echo?.echoedPages).toBeGreaterThan(0)
    const tested = await h.api.connections.test({ id: h.connectionId })
    expect(tested.ok).toBe(true)
    // An error whose body echoes them: code, field names and reasons.
    h.echo?.failNext(1)
    // The test reads each store: one refused store is reported in the answer, not thrown.
    const refused = await h.api.connections.test({ id: h.connectionId }).then(
      (answer) => JSON.stringify(answer.stores.filter((s) => !s.ok)),
      (e: unknown) => JSON.stringify(e instanceof DesktopApiError ? e.toShape() : String(e)),
    )
    expect(refused).toContain('"status":400')

    const conn = await h.store.connections.get(h.connectionId)
    if (!conn) throw new Error('connection not cached')
    const range = periodRange('2026-10', conn.timeZone)
    const history = await h.store.history.inRange(conn.id, range.from, range.to)
    expect(history.length).toBeGreaterThan(0)
    // The echo arrived, scrubbed: the rest of each text is kept.
    expect
      .soft(history[0]?.raw.metadata?.['echo_callback'])
      .toBe('https://merchant.example/cb?auth=[redacted]')
    setDesktopApiForTests(h.api)
    const delivered = await exportMonthWorkbook({
      merchantName: history[0]?.raw.merchant_name ?? 'x',
      connection: { id: conn.id, label: conn.label, timeZone: conn.timeZone },
      period: '2026-10',
      storeId: null,
      history,
      charges: await h.store.charges.inRange(conn.id, range.from, range.to),
      marks: new Map(),
      audit: [],
      generatedAt: Date.now(),
      appVersion: 'test',
    })
    setDesktopApiForTests(undefined)
    if (delivered.savedTo !== 'path') throw new Error('workbook not saved to a path')
    const book = new ExcelJS.Workbook()
    await book.xlsx.readFile(delivered.path)
    const cells: string[] = []
    book.eachSheet((ws) => ws.eachRow((row) => cells.push(JSON.stringify(row.values))))

    const dump: string[] = []
    for (const table of TABLE_NAMES) dump.push(JSON.stringify(await h.db.table(table).toArray()))
    const backup = await streamedBackup(h.db)
    const places: [string, string][] = [
      ['contract traffic', h.wire.join('\n')],
      ['IndexedDB', dump.join('\n')],
      ['backup file', backup],
      ['workbook', cells.join('\n')],
      ['error', refused],
    ]
    // Every place at once, so a failure names each place that leaked (the backup file included).
    const leaks = places.map(([where, text]) => [where, canaryLeaks(text)])
    expect(leaks).toEqual(places.map(([where]) => [where, []]))
  }, 120_000)
})
