/**
 * One seeded convergence run: a sandbox with a random mix of faults, a sync that crashes part way (either
 * the renderer dies — a page never commits — or the web host dies — every call in flight loses its answer
 * and a new host starts), marks made on what was cached, the merchant's data growing, a reload, and syncs
 * until done. Used by the convergence test (quick sizes) and `npm run test:soak`.
 */
import { MarkingService } from '../../../src/db/marking-service'
import { MarksRepository } from '../../../src/db/marks-repository'
import type { MarkRecord } from '../../../src/domain/records'
import { fingerprintOf } from '../../../src/domain/fingerprint'
import { SyncEngine, type SyncApiPort, type SyncStorePort } from '../../../src/sync/sync-engine'
import { Prng } from '../../../electron/sandbox/prng'
import { diffCacheWithSandbox, type CacheDiff } from '../support/compare'
import { startHarness } from '../support/harness'
import { fetchQuarantinedAgain } from '../../../src/sync/quarantine-refetch'
import { allHistory } from '../../../src/db/history-part-reads'

export interface ConvergenceResult extends CacheDiff {
  seed: number
  /**
   * What died in the middle of the first sync: the renderer between calls, the renderer inside a page's
   * write (its transaction had written records and day rows when it died), or the web host.
   */
  crash: 'renderer' | 'write' | 'host'
  /** How the crashed sync ended: its state, or 'threw' when the renderer died under it. */
  crashedSync: string
  converged: boolean
  syncs: number
  marksBefore: number
  marksKept: number
  faults: string
  http: Record<string, number>
}

const SINCE = Date.parse('2026-07-01T00:00:00Z')

export async function convergenceRun(seed: number, records: number): Promise<ConvergenceResult> {
  const rng = new Prng(`convergence:${seed}`)
  const faults = {
    failRate: rng.next() * 0.2,
    dropRate: rng.next() * 0.08,
    truncateRate: rng.next() * 0.05,
    badItemRate: rng.next() * 0.05,
    ...(rng.chance(0.5) ? { jitterMs: rng.int(0, 40) } : {}),
    ...(rng.chance(0.5) ? { storm: { periodMs: 600, durationMs: rng.int(50, 150) } } : {}),
  }
  const h = await startHarness({
    seed,
    stores: rng.int(1, 3),
    records,
    rateScale: 100,
    control: true,
    faults,
  })
  try {
    const request = async () => {
      const conn = await h.store.connections.get(h.connectionId)
      return {
        scope: {
          connectionId: h.connectionId,
          storeIds: h.sandbox.storeIds,
          resources: ['transaction_history', 'charges'] as const,
        },
        since: SINCE,
        lookbackMs: 2 * 3600_000,
        coveredUntil: conn?.highWater ?? {},
      }
    }
    // 1. A sync that dies part way: page k never commits (renderer), or call k kills the host.
    const crash = rng.pick(['renderer', 'write', 'host'] as const)
    // At least 4 pages and 4 calls at 400 records (2 resources, pages of 100): k falls inside the sync.
    const crashAt = rng.int(2, 4)
    let pages = 0
    let calls = 0
    const store = h.store
    const crashing: SyncStorePort = {
      loadPlan: (id) => store.loadPlan(id),
      savePlan: (id, plan) => store.savePlan(id, plan),
      staleRefundedCharges: (id, from, to) => store.staleRefundedCharges(id, from, to),
      newestCached: (id, resource, storeId) => store.newestCached(id, resource, storeId),
      changeableRecords: (id) => store.changeableRecords(id),
      fingerprintOfItem: (item) => store.fingerprintOfItem(item),
      finishRun: (id, covered, at) => store.finishRun(id, covered, at),
      splitPartition: (parts) => store.splitPartition(parts),
      putPage: async (page, cp, at) => {
        ++pages
        if (crash === 'renderer' && pages === crashAt) throw new Error('renderer killed')
        if (crash !== 'write' || pages !== crashAt) return store.putPage(page, cp, at)
        // Dies inside the write: the page's records (and a later sync's day rows) are written, then the
        // transaction fails as its checkpoint is written, before it commits. Nothing of it may land.
        const die = (): never => {
          throw new Error('renderer killed inside the write')
        }
        h.db.checkpoints.hook('creating', die)
        h.db.checkpoints.hook('updating', die)
        try {
          return await store.putPage(page, cp, at)
        } finally {
          h.db.checkpoints.hook('creating').unsubscribe(die)
          h.db.checkpoints.hook('updating').unsubscribe(die)
        }
      },
    }
    const dyingApi: SyncApiPort = {
      ...h.syncApi,
      listPage: async (args) => {
        // The host dies while this call is in flight: its answer, and every other in flight, is lost.
        if (crash === 'host' && ++calls === crashAt) {
          const answer = h.syncApi.listPage(args)
          await h.killHost()
          return answer
        }
        return h.syncApi.listPage(args)
      },
    }
    let syncs = 1
    const r = await request()
    const crashedSync = await new SyncEngine({ api: dyingApi, store: crashing })
      .run({
        ...r,
        scope: { ...r.scope, resources: [...r.scope.resources] },
      })
      .then(
        (result) => result.state as string,
        () => 'threw',
      )
    if (crash === 'host') await h.startHost()

    // 2. The accountant marks some of what is cached.
    const cached = await allHistory(h.db)
    const chosen = cached.filter(() => rng.chance(0.2)).slice(0, 25)
    const marks: MarkRecord[] = chosen.map((rec) => ({
      connectionId: h.connectionId,
      key: rec.key,
      state: 'reconciled',
      note: `seed ${seed}`,
      fingerprint: fingerprintOf(rec),
      changedSinceReconciled: 0,
      period: '2026-10',
      updatedAt: 1,
      updatedBy: 'soak',
    }))
    // Written as the app writes them: into their records' day rows (no audit needed here).
    await new MarkingService(h.db).planAndApply(h.connectionId, chosen, () => ({
      puts: marks,
      deletes: [],
      audit: [],
      refused: [],
    }))

    // 3. The merchant's data grows and changes.
    for (let i = rng.int(1, 30); i > 0; i--) h.sandbox.data.addCharge(Date.now() * 1000)
    const refundable = h.sandbox.data.charges.filter(
      (c) => c.status === 'successful' && c.refunds.length === 0,
    )
    for (let i = 0; i < 3 && refundable.length > 0; i++)
      h.sandbox.data.addRefund(rng.pick(refundable).id, Date.now() * 1000, { amount: 1 })

    // 4. Reload, then sync until done (each run resumes the last).
    await h.reopenDb()
    let state = ''
    for (let attempt = 0; attempt < 10 && state !== 'done'; attempt++) {
      const next = await request()
      const result = await new SyncEngine({ api: h.syncApi, store: h.store }).run({
        ...next,
        scope: { ...next.scope, resources: [...next.scope.resources] },
      })
      syncs++
      state = result.state
    }
    // Items a spoiled answer set aside are fetched again, as the accountant would from the sync panel.
    for (let round = 0; round < 8 && (await h.store.quarantine.count(h.connectionId)) > 0; round++)
      for (const row of await h.store.quarantine.list(h.connectionId))
        await fetchQuarantinedAgain(h.syncApi, h.store, row).catch(() => undefined)
    const diff = await diffCacheWithSandbox(h)
    // Found again through the records' times, as the app finds them (the db was reopened: a new handle).
    const after = await new MarksRepository(h.db).getMany(h.connectionId, chosen)
    const marksKept = after.filter(
      (m, i) => m && m.note === marks[i]?.note && m.state === 'reconciled',
    ).length
    return {
      seed,
      crash,
      crashedSync,
      converged: state === 'done',
      syncs,
      marksBefore: marks.length,
      marksKept,
      faults: JSON.stringify(faults, (_, v: unknown) =>
        typeof v === 'number' && !Number.isInteger(v) ? Number(v.toFixed(3)) : v,
      ),
      http: { ...h.sandbox.stats.byStatus, dropped: h.sandbox.stats.dropped },
      ...diff,
    }
  } finally {
    await h.close()
  }
}

export function tally(results: ConvergenceResult[]): string {
  const sum = (f: (r: ConvergenceResult) => number) => results.reduce((s, r) => s + f(r), 0)
  return [
    `convergence: ${results.filter((r) => r.converged).length}/${results.length} runs converged`,
    `records compared ${sum((r) => r.total)}, missing ${sum((r) => r.missing)}, extra ${sum((r) => r.extra)}, different ${sum((r) => r.different)}`,
    `marks kept ${sum((r) => r.marksKept)}/${sum((r) => r.marksBefore)}, syncs ${sum((r) => r.syncs)}`,
    `crashes mid-sync: renderer ${results.filter((r) => r.crash === 'renderer').length}, inside a write ${results.filter((r) => r.crash === 'write').length}, web host ${results.filter((r) => r.crash === 'host').length}`,
    `answers: ${JSON.stringify(
      results.reduce<Record<string, number>>((acc, r) => {
        for (const [k, v] of Object.entries(r.http)) acc[k] = (acc[k] ?? 0) + v
        return acc
      }, {}),
    )}`,
  ].join('\n')
}
