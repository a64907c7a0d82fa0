/**
 * Two clients without Closebook's scheduler, for side-by-side comparison on the same sandbox:
 * - sequential: what the public SDK's list paging does, one page after another, list after list;
 * - greedy: store × resource × month partitions (Closebook's plan before coarse partitions) all at once,
 *   each paging as fast as answers come: parallel like Closebook, but with no scheduler.
 * Both honour `Retry-After` on a 429 (otherwise they would never finish) and count the 429s they meet.
 */
import type { RemoteSandbox } from './sync-harness'
import type { TimeWindow } from '../../../src/sync/plan'

export interface NaiveResult {
  records: number
  requests: number
  http429: number
  ms: number
}

const RESOURCES = ['transaction_history', 'charges'] as const

async function pageThrough(
  sandbox: Pick<RemoteSandbox, 'url' | 'secret' | 'appToken' | 'storeIds'>,
  storeId: string,
  resource: (typeof RESOURCES)[number],
  tally: NaiveResult,
  window?: TimeWindow,
): Promise<void> {
  const auth = `Bearer ${sandbox.secret}.${sandbox.appToken}`
  // The history list's `to` is inclusive (to the µs), the charge list's exclusive.
  const range = window
    ? `&from=${new Date(window.from).toISOString()}&to=${
        resource === 'charges'
          ? new Date(window.to).toISOString()
          : `${new Date(window.to - 1000).toISOString().slice(0, 19)}.999999Z`
      }`
    : ''
  let cursor: string | undefined
  for (;;) {
    // limit 100: the largest page (the SDK's default is 10, which would make the baseline 10× slower).
    const url = `${sandbox.url}/stores/${storeId}/${resource}?limit=100${range}${cursor ? `&cursor=${cursor}` : ''}`
    const res = await fetch(url, { headers: { Authorization: auth } })
    tally.requests++
    if (res.status === 429) {
      tally.http429++
      await res.arrayBuffer()
      const wait = Number(res.headers.get('retry-after') ?? '1')
      await new Promise((r) => setTimeout(r, Math.max(0, wait * 1000)))
      continue
    }
    if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`)
    const body = (await res.json()) as { items: Record<string, unknown>[]; has_more: boolean }
    tally.records += body.items.length
    const last = body.items[body.items.length - 1]
    if (!body.has_more || !last) return
    cursor = String(resource === 'charges' ? last['id'] : last['resource_id'])
  }
}

export async function sequentialPager(
  sandbox: Pick<RemoteSandbox, 'url' | 'secret' | 'appToken' | 'storeIds'>,
): Promise<NaiveResult> {
  const tally: NaiveResult = { records: 0, requests: 0, http429: 0, ms: 0 }
  const started = Date.now()
  for (const storeId of sandbox.storeIds)
    for (const resource of RESOURCES) await pageThrough(sandbox, storeId, resource, tally)
  tally.ms = Date.now() - started
  return tally
}

/** `windows`: whole seconds, as src/sync/plan.ts monthlyWindows cuts them. */
export async function greedyParallel(
  sandbox: Pick<RemoteSandbox, 'url' | 'secret' | 'appToken' | 'storeIds'>,
  windows: TimeWindow[],
): Promise<NaiveResult> {
  const tally: NaiveResult = { records: 0, requests: 0, http429: 0, ms: 0 }
  const started = Date.now()
  await Promise.all(
    sandbox.storeIds.flatMap((storeId) =>
      RESOURCES.flatMap((r) => windows.map((w) => pageThrough(sandbox, storeId, r, tally, w))),
    ),
  )
  tally.ms = Date.now() - started
  return tally
}
