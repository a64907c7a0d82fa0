/**
 * The ledger's CSV export across the bridge: the store reads the cache (fake-indexeddb) a page at a time
 * and main's FileWriter writes the file, delivered only whole.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createPinia, setActivePinia } from 'pinia'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { FileWriter } from '../../../electron/services/files/file-writer'
import { diskError, moveIntoPlace } from '../../../electron/services/files/move-into-place'
import type { DesktopApi } from '../../../electron/shared/contract'
import { createCache, setAppCacheForTests, type Cache } from '../../../src/db/cache'
import type { ClosebookDb } from '../../../src/db/database'
import { historyRecordOf } from '../../../src/db/history-record'
import { markDayRowsOf } from '../../../src/db/marks-repository'
import type { HistoryFilter } from '../../../src/db/history-repository'
import type { MarkRecord, RecordKey } from '../../../src/domain/records'
import { toCsv } from '../../../src/export/csv'
import { TRANSACTION_HEADERS, transactionRow } from '../../../src/export/month-workbook'
import { setDesktopApiForTests } from '../../../src/platform'
import { useLedgerStore } from '../../../src/stores/ledger-store'
import { IDBKeyRange, IDBFactory } from 'fake-indexeddb'
import { ClosebookDb as Db } from '../../../src/db/database'
import { CONN, HOUR, T0, historyItem } from '../../support/api-items'
import { checkpoint, mark, putMarks } from '../../support/cache'

// Pages of about 7 records: the 40 records below span several, some with a run of equal times across a
// page's edge.
vi.mock('../../../src/db/history-pages', async (original) => ({
  ...(await original<typeof import('../../../src/db/history-pages')>()),
  HISTORY_PAGE_SIZE: 7,
}))

const N = 40
/** Record i's time: six records share each time, 20 minutes apart, so time windows of an hour hold some. */
const timeOf = (i: number): number => T0 + Math.floor(i / 6) * 1_200_000

const CONNECTION = {
  id: CONN,
  label: 'Test',
  baseUrl: 'http://127.0.0.1',
  timeZone: 'Asia/Tokyo',
  storeIds: [],
  isDemo: false,
  lastSyncedAt: null,
  highWater: {},
}

let db: ClosebookDb
let cache: Cache
let dir: string
let target: string
let files: FileWriter
let appends: number
/** Called before each append reaches the writer (to cancel or fail mid-way). */
let beforeAppend: (n: number) => void

function fakeFilesApi(): DesktopApi {
  const api: Pick<DesktopApi, 'files'> = {
    files: {
      begin: async (a) => ({ fileId: await files.begin(a.suggestedName as string, a.encoding) }),
      append: async (a) => {
        beforeAppend(++appends)
        return { bytesWritten: await files.append(a.fileId, a.chunk) }
      },
      finish: (a) => files.finish(a.fileId),
      cancel: async (a) => ({ cancelled: await files.cancel(a.fileId) }),
    },
  }
  return api as DesktopApi
}

/** A new, empty cache with the connection, as the app's cache. */
async function openCache(name: string): Promise<void> {
  db = new Db(name, { indexedDB: new IDBFactory(), IDBKeyRange })
  cache = createCache(db)
  setAppCacheForTests(cache)
  await cache.connections.put(CONNECTION)
}

beforeEach(async () => {
  await openCache('closebook-csv-export')
  const records = Array.from({ length: N }, (_, i) =>
    historyRecordOf(
      CONN,
      historyItem(i, {
        created_on: new Date(timeOf(i)).toISOString(),
        ...(i % 4 === 3 ? { type: 'refund' as const } : {}),
      }),
      0,
    ),
  )
  await cache.history.putPage(CONN, records, checkpoint())
  // Every third record reconciled, with a note that needs quoting.
  await putMarks(
    db,
    records.filter((_, i) => i % 3 === 0).map((r) => mark(r.key, { note: `seen, "ok"` })),
    (m) => records.find((r) => r.key === m.key)?.createdAt ?? T0,
  )
  dir = await mkdtemp(join(tmpdir(), 'closebook-ledger-csv-'))
  target = join(dir, 'out.csv')
  files = new FileWriter({
    dataDir: dir,
    deliverFile: async (temp, fileName) => {
      await moveIntoPlace(temp, target)
      return { savedTo: 'path', path: target, fileName }
    },
  })
  appends = 0
  beforeAppend = () => undefined
  setDesktopApiForTests(fakeFilesApi())
  setActivePinia(createPinia())
})

afterEach(async () => {
  setDesktopApiForTests(undefined)
  setAppCacheForTests(undefined)
  db.close()
  await rm(dir, { recursive: true, force: true })
})

/** The file as the export wrote it before it streamed: every record in one query, then their marks. */
async function wholeExport(filter: HistoryFilter, order: 'asc' | 'desc'): Promise<string> {
  const records = await cache.history.queryPage({ ...filter, order, offset: 0, limit: Infinity })
  const marks = new Map<RecordKey, MarkRecord>()
  for (const m of await cache.marks.getMany(CONN, records)) if (m) marks.set(m.key, m)
  return toCsv(
    TRANSACTION_HEADERS,
    records.map((r) => transactionRow(r, marks.get(r.key), 'Asia/Tokyo', r.raw.store_name || null)),
  )
}

const leftovers = async (): Promise<string[]> => [
  ...(await readdir(join(dir, 'tmp')).catch(() => [])),
  ...(await readdir(dir)).filter((f) => f !== 'tmp'),
]

describe('ledger store: CSV export', () => {
  it('writes the same bytes as one whole read, a page at a time, for the date order either way', async () => {
    const ledger = useLedgerStore()
    await ledger.init()
    for (const order of ['desc', 'asc'] as const) {
      ledger.order = order
      appends = 0
      expect(await ledger.exportCsv()).toBe('closebook-ledger-all.csv')
      const expected = await wholeExport({ connectionId: CONN, from: 0, to: 8.64e15 }, order)
      expect(await readFile(target, 'utf8')).toBe(expected)
      expect(expected.split('\r\n')).toHaveLength(N + 2) // header, N rows, and the last line's end
      expect(appends).toBeGreaterThan(3) // one chunk per page (time windows of about 7 records)
    }
  })

  it('writes the filtered records only, with their marks', async () => {
    const ledger = useLedgerStore()
    await ledger.init()
    ledger.filters.type = 'refund'
    await ledger.exportCsv()
    const filter = { connectionId: CONN, from: 0, to: 8.64e15, type: 'refund' as const }
    const text = await readFile(target, 'utf8')
    expect(text).toBe(await wholeExport(filter, 'desc'))
    expect(text).toContain('"seen, ""ok"""')
  })

  it('cancelled mid-way: no file at the target, no temporary file left, and no error shown', async () => {
    const ledger = useLedgerStore()
    await ledger.init()
    const cancel = new AbortController()
    beforeAppend = (n) => n === 3 && cancel.abort()
    expect(await ledger.exportCsv({ signal: cancel.signal })).toBeNull()
    expect(appends).toBe(3)
    expect(await leftovers()).toEqual([])
    expect(ledger.notice).toBeNull()
  })

  it('a write failing mid-way leaves no file and says why', async () => {
    const ledger = useLedgerStore()
    await ledger.init()
    beforeAppend = (n) => {
      if (n === 2) throw diskError(Object.assign(new Error('no space'), { code: 'ENOSPC' }), 'out.csv')
    }
    expect(await ledger.exportCsv()).toBeNull()
    expect(await leftovers()).toEqual([])
    expect(ledger.notice).toMatchObject({
      kind: 'error',
      error: { code: 'disk_full', detail: expect.stringContaining('out.csv was not written') as string },
    })
  })
})

/**
 * A week of records, about nine per UTC day so that pages of 7 cross day rows: refunds, three currencies,
 * failed charges, runs of equal times, marks with notes on every third record and on each day's first and
 * last record, and marks kept in the orphan row (one also in its day row, which wins).
 */
describe('ledger store: CSV export over many days', () => {
  const M = 63
  /** Record i's time: 2.7 hours apart, every fifth at its predecessor's time. */
  const timeAt = (i: number): number => T0 + Math.round((i - (i % 5 === 4 ? 1 : 0)) * 2.7 * HOUR)
  const currencies = ['JPY', 'USD', 'EUR'] as const

  beforeEach(async () => {
    // A cache of these records alone (the 40 above are not in it).
    db.close()
    await openCache('closebook-csv-export-days')
    const records = Array.from({ length: M }, (_, i) =>
      historyRecordOf(
        CONN,
        historyItem(1000 + i, {
          created_on: new Date(timeAt(i)).toISOString(),
          currency: currencies[i % 3],
          amount: 1000 + 37 * i,
          amount_formatted: 1000 + 37 * i,
          ...(i % 4 === 3 ? { type: 'refund' as const } : {}),
          ...(i % 7 === 0 ? { status: 'failed' } : {}),
        }),
        0,
      ),
    )
    await cache.history.putPage(CONN, records, checkpoint())
    const dayOf = (r: { createdAt: number }): number => Math.floor(r.createdAt / 86_400_000)
    const edge = (i: number): boolean =>
      dayOf(records[i]!) !== dayOf(records[i - 1] ?? { createdAt: -1e15 }) ||
      dayOf(records[i]!) !== dayOf(records[i + 1] ?? { createdAt: 1e15 })
    const marked = records.filter((_, i) => i % 3 === 0 || edge(i))
    await putMarks(
      db,
      marked.map((r, n) => mark(r.key, { note: n % 2 ? `day ${n}, "ok"` : '' })),
      (m) => records.find((r) => r.key === m.key)?.createdAt ?? T0,
    )
    // Marks restored before their records came: filed in the orphan row until a sync adopts them.
    const orphans = [records[10]!, records[11]!, records[12]!].map((r) =>
      mark(r.key, { note: `orphan ${r.resourceId.slice(0, 4)}` }),
    )
    await db.markDays.bulkPut(markDayRowsOf(orphans, () => undefined))
  })

  const cases = [
    { name: 'all, newest first', order: 'desc', filters: {}, orphan: true },
    { name: 'all, oldest first', order: 'asc', filters: {}, orphan: true },
    { name: 'USD only, newest first', order: 'desc', filters: { currency: 'USD' }, orphan: false },
    {
      name: 'successful refunds, oldest first',
      order: 'asc',
      filters: { type: 'refund', status: 'successful' },
      orphan: true,
    },
  ] as const

  for (const c of cases)
    it(`writes the same bytes as one whole read with each record's mark: ${c.name}`, async () => {
      const ledger = useLedgerStore()
      await ledger.init()
      Object.assign(ledger.filters, c.filters)
      ledger.order = c.order
      await ledger.exportCsv()
      const text = await readFile(target, 'utf8')
      const expected = await wholeExport({ connectionId: CONN, from: 0, to: 8.64e15, ...c.filters }, c.order)
      expect(text).toBe(expected)
      expect(text.split('\r\n').length).toBeGreaterThan(c.name.startsWith('all') ? M : 5)
      // An orphan's mark and note are exported (the USD records' orphans also have a day mark, which wins).
      expect(text.includes('reconciled,Yes,orphan')).toBe(c.orphan)
    })

  it('exports the marks in a column sort too (rows in the order shown)', async () => {
    const ledger = useLedgerStore()
    await ledger.init()
    ledger.sortBy('amount')
    await vi.waitFor(() => expect(ledger.rows.size).toBe(M))
    await ledger.exportCsv()
    const shown = [...ledger.rows.entries()].sort(([a], [b]) => a - b).map(([, r]) => r)
    const marks = new Map<RecordKey, MarkRecord>()
    for (const m of await cache.marks.getMany(CONN, shown)) if (m) marks.set(m.key, m)
    const expected = toCsv(
      TRANSACTION_HEADERS,
      shown.map((r) => transactionRow(r, marks.get(r.key), 'Asia/Tokyo', r.raw.store_name || null)),
    )
    expect(await readFile(target, 'utf8')).toBe(expected)
  })
})

describe('ledger store: CSV export of many records', () => {
  const DAYS = 30
  const PER_DAY = 20

  beforeEach(async () => {
    db.close()
    await openCache('closebook-csv-export-held')
    const start = Math.ceil(T0 / 86_400_000) * 86_400_000
    const records = Array.from({ length: DAYS * PER_DAY }, (_, i) =>
      historyRecordOf(
        CONN,
        historyItem(5000 + i, { created_on: new Date(start + i * 4_320_000).toISOString() }),
        0,
      ),
    )
    await cache.history.putPage(CONN, records, checkpoint())
  })

  it('holds a few pages of records at any time, never the whole result', async () => {
    // Records read from the cache, and lines the host has taken: their difference is what the export holds.
    let read = 0
    let written = 0
    let held = 0
    const inRange = cache.history.inRange.bind(cache.history)
    vi.spyOn(cache.history, 'inRange').mockImplementation(async (...args) => {
      const page = await inRange(...args)
      read += page.length
      held = Math.max(held, read - written)
      return page
    })
    const append = fakeFilesApi().files.append
    setDesktopApiForTests({
      files: {
        ...fakeFilesApi().files,
        append: async (a) => {
          const taken = await append(a)
          written += a.chunk.split('\r\n').length - 1
          return taken
        },
      },
    } as DesktopApi)
    const ledger = useLedgerStore()
    await ledger.init()
    expect(await ledger.exportCsv()).toBe('closebook-ledger-all.csv')
    expect(read).toBe(DAYS * PER_DAY)
    expect(written).toBe(DAYS * PER_DAY + 1)
    // Pages are whole days here (a day is 20 records, pages of 7 asked): the page being written and two
    // read ahead.
    expect(held).toBeLessThanOrEqual(3 * PER_DAY)
  })
})
