import { describe, expect, it } from 'vitest'
import type { SyncCheckpoint } from '../../../../src/domain/records'
import {
  INITIAL_PREFIX,
  OPEN_END,
  pageQuery,
  partitionKeyOf,
  planIncrementalSync,
  planInitialSync,
  planWindowSync,
  splitCount,
  splitRemainder,
  VERIFY_PREFIX,
} from '../../../../src/sync/plan'

const T = (iso: string) => Date.parse(iso)
const scope = {
  connectionId: 'c1',
  storeIds: ['s1', 's2'],
  resources: ['transaction_history', 'charges'] as const,
}

function cp(over: Partial<SyncCheckpoint> = {}): SyncCheckpoint {
  return {
    connectionId: 'c1',
    partitionId: 'initial|charges|s1|x',
    resource: 'charges',
    storeId: 's1',
    from: T('2026-01-01T00:00:00Z'),
    to: T('2026-11-01T00:00:00Z'),
    cursor: 'after-page-1',
    done: false,
    records: 100,
    requests: 1,
    updatedAt: 0,
    ...over,
  }
}

describe('planInitialSync', () => {
  it('plans one partition per store × resource over the whole range, resources interleaved', () => {
    const plan = planInitialSync(
      { ...scope, resources: [...scope.resources] },
      T('2025-11-01T00:00:00Z'),
      T('2026-11-23T09:00:00.400Z'),
    )
    expect(plan.map((p) => [p.storeId, p.resource])).toEqual([
      ['s1', 'transaction_history'],
      ['s1', 'charges'],
      ['s2', 'transaction_history'],
      ['s2', 'charges'],
    ])
    for (const p of plan) {
      expect(p.from).toBe(T('2025-11-01T00:00:00Z'))
      expect(p.to).toBe(OPEN_END) // no `to` at all: the service's present, not the local clock's
      expect(p.partitionId.startsWith(INITIAL_PREFIX)).toBe(true)
      expect(p.cursor).toBeNull()
    }
  })

  it('a re-verify plan covers the window once per store × resource and stays a verify plan', () => {
    const plan = planWindowSync(
      { ...scope, resources: [...scope.resources] },
      { from: T('2026-09-01T00:00:00Z'), to: T('2026-10-01T00:00:00Z') },
      0,
    )
    expect(plan).toHaveLength(4)
    expect(plan.every((p) => p.partitionId.startsWith(VERIFY_PREFIX))).toBe(true)
  })

  it('asks for the largest page the API allows', () => {
    expect(pageQuery(cp(), 'job').paging?.limit).toBe(100)
  })
})

describe('splitCount', () => {
  const base = { open: 5, unprobed: 5, maxOpen: 16 }
  it('leaves a partition whole when what is left is a few pages', () => {
    expect(splitCount({ ...base, remaining: 450 })).toBe(1)
    expect(splitCount({ ...base, remaining: 0 })).toBe(1)
  })
  it('leaves it whole when the resource already has enough partitions open', () => {
    expect(splitCount({ ...base, open: 16, unprobed: 1, remaining: 50_000 })).toBe(1)
  })
  it('shares the room for new partitions with those that have not answered yet', () => {
    // 11 more allowed, 5 partitions to share them: 3 each at most (so 4 parts), fewer when small.
    expect(splitCount({ ...base, remaining: 50_000 })).toBe(4)
    expect(splitCount({ ...base, remaining: 1_200 })).toBe(4)
    expect(splitCount({ ...base, remaining: 700 })).toBe(2)
    // The last one to answer gets what is left.
    expect(splitCount({ open: 14, unprobed: 1, maxOpen: 16, remaining: 50_000 })).toBe(3)
  })
})

describe('splitRemainder', () => {
  it('narrows the partition just after its cursor and tiles the rest on whole seconds', () => {
    const parent = cp()
    const last = T('2026-07-02T10:00:00.250Z')
    const parts = splitRemainder(parent, last, 3, 5)
    expect(parts).toHaveLength(3)
    const [narrowed, ...children] = parts as [SyncCheckpoint, ...SyncCheckpoint[]]
    // The narrowed partition keeps its window start, cursor and counts, and everything up to its cursor.
    expect(narrowed).toMatchObject({ from: parent.from, cursor: 'after-page-1', records: 100, requests: 1 })
    expect(narrowed.to).toBeGreaterThan(last)
    // No gap, no overlap, ends where the partition ended.
    expect(children[0]?.from).toBe(narrowed.to)
    expect(children[1]?.from).toBe(children[0]?.to)
    expect(children[1]?.to).toBe(parent.to)
    for (const p of parts) {
      expect(p.to % 1000).toBe(0)
      expect(p.from % 1000).toBe(0)
    }
    for (const c of children) {
      expect(c).toMatchObject({ cursor: null, records: 0, requests: 0, done: false, resource: 'charges' })
      expect(c.partitionId.startsWith(`${parent.partitionId}>`)).toBe(true)
    }
    expect(new Set(parts.map((p) => p.partitionId)).size).toBe(3)
  })

  it('keeps the verify prefix on parts of a verify partition', () => {
    const parts = splitRemainder(
      cp({ partitionId: `${VERIFY_PREFIX}charges|s1|a|b` }),
      T('2026-02-01T00:00:00Z'),
      2,
      0,
    )
    expect(parts.every((p) => p.partitionId.startsWith(VERIFY_PREFIX))).toBe(true)
  })

  it('does not split when nothing is left after the last record, or one part is asked for', () => {
    const parent = cp({ to: T('2026-07-02T10:00:01Z') })
    expect(splitRemainder(parent, T('2026-07-02T10:00:00.250Z'), 4, 0)).toEqual([parent])
    expect(splitRemainder(cp(), T('2026-07-02T10:00:00Z'), 1, 0)).toEqual([cp()])
  })

  it('a narrow remainder gives fewer parts rather than empty ones', () => {
    const parent = cp({ to: T('2026-07-02T10:00:03Z') })
    const parts = splitRemainder(parent, T('2026-07-02T10:00:00.500Z'), 10, 0)
    expect(parts.length).toBeLessThanOrEqual(3)
    for (const p of parts) expect(p.to).toBeGreaterThan(p.from)
    expect(parts.at(-1)?.to).toBe(parent.to)
  })
})

describe('planIncrementalSync', () => {
  it('starts each store × resource at its newest cached record minus the look-back, never at the clock', () => {
    const newest = new Map([
      [partitionKeyOf('transaction_history', 's1'), T('2026-10-31T22:48:21.847Z')],
      [partitionKeyOf('charges', 's1'), T('2026-10-31T20:00:00.500Z')],
    ])
    // The clock says 2030: it plays no part in where the windows start or end.
    const plan = planIncrementalSync(
      { ...scope, resources: [...scope.resources] },
      newest,
      15 * 60_000,
      T('2026-07-01T00:00:00Z'),
      T('2030-01-01T00:00:00Z'),
    )
    expect(plan.map((p) => [p.resource, p.storeId, new Date(p.from).toISOString()])).toEqual([
      ['transaction_history', 's1', '2026-10-31T22:33:21.000Z'],
      ['charges', 's1', '2026-10-31T19:45:00.000Z'],
      // Nothing cached for s2 yet: from the start of the history.
      ['transaction_history', 's2', '2026-07-01T00:00:00.000Z'],
      ['charges', 's2', '2026-07-01T00:00:00.000Z'],
    ])
    for (const p of plan) expect(p.to).toBe(OPEN_END)
  })

  it('an open window sends no `to`; a closed one does', () => {
    const open = pageQuery(cp({ to: OPEN_END }), 'job')
    expect(open.filters).toEqual({ from: '2026-01-01T00:00:00.000Z' })
    const history = pageQuery(cp({ resource: 'transaction_history', to: OPEN_END }), 'job')
    expect(history.filters).toEqual({ from: '2026-01-01T00:00:00.000Z' })
    expect(pageQuery(cp(), 'job').filters).toMatchObject({ to: '2026-11-01T00:00:00.000Z' })
  })

  it('splits an open window up to now and keeps its last part open', () => {
    const parts = splitRemainder(
      cp({ to: OPEN_END }),
      T('2026-01-10T00:00:00Z'),
      3,
      T('2026-01-31T00:00:00Z'),
    )
    expect(parts.length).toBe(3)
    expect(parts[parts.length - 1]?.to).toBe(OPEN_END)
    for (let i = 1; i < parts.length; i++) expect(parts[i]?.from).toBe(parts[i - 1]?.to)
    expect(parts[1]?.from).toBeLessThan(T('2026-01-31T00:00:00Z'))
  })
})
