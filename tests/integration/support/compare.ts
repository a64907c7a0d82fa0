import { ChargesRepository } from '../../../src/db/charges-repository'
import type { Harness } from './harness'
import { historyInRange } from '../../../src/db/history-part-reads'

export interface CacheDiff {
  /** Sandbox records absent from the cache. */
  missing: number
  /** Cached records the sandbox does not have. */
  extra: number
  /** Records in both whose fields differ. */
  different: number
  total: number
}

/** Compares the cache with the sandbox's data, record by record and field by field. */
export async function diffCacheWithSandbox(h: Harness): Promise<CacheDiff> {
  const truth = h.sandbox.snapshot()
  const range = [
    [h.connectionId, -Infinity],
    [h.connectionId, Infinity],
  ] as const
  const history = await historyInRange(h.db, h.connectionId, range[0][1], range[1][1])
  // Through the day rows, as month-end reads a period: a charge they miss counts as missing.
  const charges = await new ChargesRepository(h.db).inRange(h.connectionId, -Infinity, Infinity)
  const cached = new Map<string, unknown>()
  for (const r of history) cached.set(`h:${r.key}`, r.raw)
  for (const r of charges) cached.set(`c:${r.id}`, r.raw)
  const wanted = new Map<string, unknown>()
  for (const i of truth.history) wanted.set(`h:${String(i['type'])}:${String(i['resource_id'])}`, i)
  for (const i of truth.charges) wanted.set(`c:${String(i['id'])}`, i)
  let missing = 0
  let different = 0
  for (const [key, item] of wanted) {
    if (!cached.has(key)) missing++
    else if (JSON.stringify(sortKeys(cached.get(key))) !== JSON.stringify(sortKeys(item))) different++
  }
  let extra = 0
  for (const key of cached.keys()) if (!wanted.has(key)) extra++
  return { missing, extra, different, total: wanted.size }
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys)
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, sortKeys((value as Record<string, unknown>)[k])]),
    )
  return value
}
