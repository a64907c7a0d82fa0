/**
 * Hostile services on a loopback socket against main's real gateway and the renderer's sync engine: a
 * sync that would never end stops by itself with a specific reason and keeps what it stored; an
 * impossible total_hits is unknown; a page with more items than asked, or larger than main reads, is
 * refused whole; a 10 MB text field is cut to what is stored; a run that set items aside says so.
 * Every server here answers a bounded number of requests, and every test stops by itself.
 */
import type { ServerResponse } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MAX_PAGE_BODY } from '../../../electron/services/api-client/payment-api-client'
import { DesktopApiError } from '../../../electron/shared/errors'
import { cutFieldsOf, MAX_STORED_TEXT } from '../../../electron/shared/stored-text'
import { createAppI18n } from '../../../src/i18n'
import { estimateProgress } from '../../../src/sync/progress-estimate'
import { stateMessage, stopMessage, type Message } from '../../../src/sync/status-text'
import {
  hostileItem,
  idOf,
  json,
  startHostileService,
  STORE,
  T0,
  type HostileService,
} from './hostile-server'
import { allHistory, countHistory } from '../../../src/db/history-part-reads'

const MB = 1024 * 1024
/** Requests any of these servers may answer in one test before it gives up answering: a guard failed. */
const RUNAWAY = 500

let h: HostileService

beforeAll(async () => {
  h = await startHostileService()
})

afterAll(async () => {
  await h.close()
})

/** A page of history asked for through the contract: the error it failed with, or null. */
function listError(): Promise<unknown> {
  return h.api.api
    .listPage({
      connectionId: h.connectionId,
      resource: 'transaction_history',
      storeId: STORE,
      paging: { limit: 100 },
    })
    .then(
      () => null,
      (e: unknown) => e,
    )
}

function say(locale: 'en' | 'ja', m: Message | null): string {
  if (!m) return ''
  const { global } = createAppI18n(locale)
  return m.plural === undefined ? global.t(m.key, m.params) : global.t(m.key, m.params, m.plural)
}

/** Writes `chunks` chunks of `chunk` as the socket takes them; stops when the client goes away. */
function stream(res: ServerResponse, head: string, chunk: string, chunks: number, sent: { bytes: number }) {
  res.writeHead(200, { 'Content-Type': 'application/json' })
  let i = 0
  const more = (): void => {
    while (i < chunks && !res.destroyed) {
      i++
      sent.bytes += chunk.length
      if (!res.write(i === 1 ? head + chunk : chunk)) {
        res.once('drain', more)
        return
      }
    }
    if (!res.destroyed) res.end('"}}],"has_more":false}')
  }
  res.on('close', () => (i = chunks))
  more()
}

/** The host's resident and heap memory at its peak while `work` runs, and their growth over it (MB). */
async function peakMemory<T>(
  work: () => Promise<T>,
): Promise<{ value: T; rssMb: number; heapMb: number; peakRssMb: number; peakHeapMb: number }> {
  const before = process.memoryUsage()
  let rss = before.rss
  let heap = before.heapUsed
  const sample = setInterval(() => {
    const now = process.memoryUsage()
    rss = Math.max(rss, now.rss)
    heap = Math.max(heap, now.heapUsed)
  }, 5)
  try {
    const value = await work()
    return {
      value,
      rssMb: (rss - before.rss) / MB,
      heapMb: (heap - before.heapUsed) / MB,
      peakRssMb: rss / MB,
      peakHeapMb: heap / MB,
    }
  } finally {
    clearInterval(sample)
  }
}

describe('a sync that would never end', () => {
  it('a cursor alternating between two ids with no total_hits stops the partition at the first repeat', async () => {
    let n = 0
    h.setHandler((_req, res, url) => {
      if (h.requests() > RUNAWAY) return res.destroy()
      const cursor = url.searchParams.get('cursor')
      n++
      json(res, {
        items: [hostileItem(n, T0 - 100 + n)],
        has_more: true,
        next_cursor: cursor === idOf(9001) ? idOf(9002) : idOf(9001),
      })
    })
    const { result, db, store } = await h.sync()
    expect(result.state).toBe('partial')
    const stopped = result.partitions.filter((p) => p.error)
    expect(stopped.map((p) => p.error?.reason)).toEqual(['cursor_repeated'])
    expect(h.requests()).toBe(3)
    // The two pages before the loop are stored; the checkpoint stays at the last good cursor.
    expect(await countHistory(db)).toBe(2)
    expect((await store.loadPlan(h.connectionId))[0]?.cursor).toBe(idOf(9002))
    const text = say('en', stopMessage(stopped[0]?.error ?? null))
    expect(text).toMatch(/cursor it had already sent \(after 3 pages\).*what was stored before stays/)
    expect(say('ja', stopMessage(stopped[0]?.error ?? null))).toMatch(/循環/)
  }, 60_000)

  it('fresh ids at one instant forever stop once that instant cannot hold so many records', async () => {
    let n = 0
    h.setHandler((_req, res) => {
      if (h.requests() > RUNAWAY) return res.destroy()
      const items = Array.from({ length: 100 }, () => hostileItem(++n, T0))
      json(res, { items, has_more: true })
    })
    const { result, db } = await h.sync()
    expect(result.partitions.map((p) => p.error?.reason)).toEqual(['too_dense'])
    expect(h.requests()).toBe(21)
    expect(await countHistory(db)).toBe(2_000)
  }, 60_000)

  it('the same, at an instant far enough back that the partition is split: the parts share one bound', async () => {
    let n = 0
    h.setHandler((_req, res) => {
      if (h.requests() > RUNAWAY) return res.destroy()
      const items = Array.from({ length: 100 }, () => hostileItem(++n, T0 - 3_600_000))
      json(res, { items, has_more: true })
    })
    const { result } = await h.sync()
    expect(result.partitions.length).toBeGreaterThan(1)
    expect(new Set(result.partitions.map((p) => p.error?.reason))).toEqual(new Set(['too_dense']))
    // 2,000 records at one instant in all, then one more page per part at most.
    expect(h.requests()).toBeLessThanOrEqual(21 + result.partitions.length)
  }, 60_000)

  it('a total_hits of 10^12 is unknown: the progress never reads "of about" an absurd number', async () => {
    h.setHandler((_req, res, url) => {
      const cursor = url.searchParams.get('cursor')
      const page = cursor === null ? 0 : Number(cursor.slice(-12)) / 10
      const items = Array.from({ length: 10 }, (_, i) =>
        hostileItem(page * 10 + i + 1, T0 - 600_000 + page * 10_000 + i),
      )
      json(res, {
        items,
        has_more: page < 2,
        ...(cursor === null ? { total_hits: 1e12 } : {}),
      })
    })
    const { result, progress } = await h.sync()
    expect(result.state).toBe('done')
    expect(result.records).toBe(30)
    expect(progress.every((p) => p.partitions.every((x) => x.totalHits === null))).toBe(true)
    for (const p of progress)
      expect(estimateProgress({ ...p, now: T0 }).history.expected ?? 0).toBeLessThanOrEqual(30)
  }, 60_000)
})

describe('unbounded answers', () => {
  it('a page of 30,000 items when 100 were asked for is refused whole, and nothing of it is stored', async () => {
    const minimal = (i: number) => ({
      store_id: STORE,
      resource_id: idOf(i),
      amount: 1,
      currency: 'JPY',
      type: 'charge',
      status: 'successful',
      created_on: new Date(T0 - 1000).toISOString(),
      mode: 'live',
    })
    const body = JSON.stringify({
      items: Array.from({ length: 30_000 }, (_, i) => minimal(i)),
      has_more: false,
    })
    expect(body.length).toBeLessThan(MAX_PAGE_BODY)
    h.setHandler((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' })
      res.end(body)
    })
    const error = await listError()
    expect(error).toBeInstanceOf(DesktopApiError)
    expect((error as DesktopApiError).details).toMatchObject({
      reason: 'too_many_items',
      params: { received: 30_000, asked: 100 },
    })
    const { result, db } = await h.sync()
    expect(result.partitions.map((p) => p.error?.reason)).toEqual(['too_many_items'])
    expect(await countHistory(db)).toBe(0)
    expect(say('en', stopMessage(result.partitions[0]?.error ?? null))).toBe(
      'The payment service sent 30,000 items in a page of at most 100. The page was refused; nothing of it was stored.'.replace(
        '30,000',
        '30000',
      ),
    )
  }, 60_000)

  it('a 10 MB string in an item is cut to the stored limit, named, and the item stored', async () => {
    const blob = 'y'.repeat(10 * MB)
    h.setHandler((_req, res) =>
      json(res, {
        items: [
          hostileItem(1, T0 - 1000, { metadata: { order_number: 'ORD-1', blob } }),
          hostileItem(2, T0 - 900, {
            user_data: { type: 'charge', cardholder_name: blob.slice(0, 5 * MB), refunds: [] },
          }),
        ],
        has_more: false,
      }),
    )
    const measured = await peakMemory(() => h.sync())
    const { result, db } = measured.value
    expect(result.state).toBe('done')
    const stored = await allHistory(db)
    expect(stored).toHaveLength(2)
    const byId = new Map(stored.map((r) => [r.raw.resource_id, r.raw]))
    expect(byId.get(idOf(1))?.metadata?.['blob']).toHaveLength(MAX_STORED_TEXT + 1)
    expect(cutFieldsOf(byId.get(idOf(1)))).toEqual(['metadata.blob'])
    expect(cutFieldsOf(byId.get(idOf(2)))).toEqual(['user_data.cardholder_name'])
    expect(JSON.stringify(stored).length).toBeLessThan(64 * 1024)
    console.info(
      `10 MB and 5 MB fields (a 15 MB page): peak rss ${measured.peakRssMb.toFixed(0)} MB (+${measured.rssMb.toFixed(0)}), heap ${measured.peakHeapMb.toFixed(0)} MB (+${measured.heapMb.toFixed(0)})`,
    )
  }, 60_000)

  it('a page of 100 items with 10 MB each (1 GB) is refused as it streams in, past the byte limit', async () => {
    const sent = { bytes: 0 }
    const head = `{"items":[{"resource_id":"${idOf(1)}","metadata":{"blob":"`
    h.setHandler((_req, res) => stream(res, head, 'z'.repeat(MB), 1024, sent))
    const measured = await peakMemory(listError)
    const error = measured.value
    expect(error).toBeInstanceOf(DesktopApiError)
    expect((error as DesktopApiError).details).toMatchObject({
      reason: 'page_too_large',
      params: { maxMb: 16 },
    })
    // The server stopped writing soon after the limit (socket buffers hold a few MB), not at 1 GB.
    await new Promise((r) => setTimeout(r, 200))
    expect(sent.bytes).toBeLessThan(MAX_PAGE_BODY + 32 * MB)
    expect(h.requests()).toBe(1)
    console.info(
      `1 GB page refused after ${(sent.bytes / MB).toFixed(0)} MB sent: peak rss ${measured.peakRssMb.toFixed(0)} MB (+${measured.rssMb.toFixed(0)}), heap ${measured.peakHeapMb.toFixed(0)} MB (+${measured.heapMb.toFixed(0)})`,
    )
  }, 60_000)

  it('an error answer with an endless body is read only as far as its code', async () => {
    const sent = { bytes: 0 }
    h.setHandler((_req, res) => {
      res.writeHead(500, { 'Content-Type': 'application/json' })
      const more = (): void => {
        while (!res.destroyed && sent.bytes < 512 * MB) {
          sent.bytes += MB
          if (!res.write('x'.repeat(MB))) return void res.once('drain', more)
        }
        res.end()
      }
      more()
    })
    const error = await listError()
    expect(error).toBeInstanceOf(DesktopApiError)
    await new Promise((r) => setTimeout(r, 200))
    expect(sent.bytes).toBeLessThan(64 * MB)
  }, 60_000)
})

describe('a sync that set items aside', () => {
  it('ends saying how many were set aside, never a bare "Up to date."', async () => {
    h.setHandler((_req, res) =>
      json(res, {
        items: [
          hostileItem(1, T0 - 3000, { amount: 'lots' }),
          hostileItem(2, T0 - 2000),
          hostileItem(3, T0 - 1000, { currency: 12 }),
        ],
        has_more: false,
      }),
    )
    const { result, store } = await h.sync()
    expect(result.state).toBe('done')
    const setAside = (await store.quarantine.list(h.connectionId)).length
    expect(setAside).toBe(2)
    expect(say('en', stateMessage(result.state, setAside))).toBe(
      'Up to date, 2 items set aside: fetch again.',
    )
    expect(say('ja', stateMessage(result.state, setAside))).toBe(
      '最新の状態です。ただし 2 件を保留にしています：再取得してください。',
    )
  }, 60_000)
})
