/**
 * The workers of one run: each takes the queued partition of the resource with the fewest running, so
 * both Route budgets are in use; a worker with nothing to take waits while a running partition may split.
 * Each resource has its own Route budget: workers are shared evenly between the resources with work.
 */
import type { SyncCheckpoint, SyncResource } from '../domain/records'
import { PagingGuard, SpanTally } from './paging-guard'
import type { Entry, PartitionProgress, RunContext } from './sync-types'

/** What the run shares with its partitions, less what the pool adds (splits, shares, the queue). */
export type PoolRun = Pick<
  RunContext,
  'jobId' | 'signal' | 'progress' | 'emit' | 'partitions' | 'perMinute' | 'abortRun'
>

export type FetchPartition = (cp: SyncCheckpoint, view: PartitionProgress, run: RunContext) => Promise<void>

export class PartitionPool {
  private readonly queue: Entry[]
  private readonly running = new Map<SyncResource, number>()
  private active = 0
  private waiters: (() => void)[] = []
  /** Workers a resource may keep while another resource's partitions wait for one. */
  private readonly share: number
  private readonly context: RunContext

  constructor(
    plan: SyncCheckpoint[],
    base: PoolRun,
    private readonly concurrency: number,
  ) {
    const { partitions } = base
    this.queue = plan
      .map((cp, i) => ({ cp, view: partitions[i] as PartitionProgress }))
      .filter(({ cp }) => !cp.done)
    const resourcesInPlan = new Set(plan.map((cp) => cp.resource)).size
    this.share = Math.ceil(concurrency / Math.max(1, resourcesInPlan))
    this.context = {
      ...base,
      maxOpen: 2 * this.share,
      spawn: (entries) => {
        for (const { cp, view } of entries) {
          plan.push(cp)
          if (!partitions.includes(view)) partitions.push(view)
          this.queue.push({ cp, view })
        }
        base.emit()
        this.wakeAll()
      },
      overShare: (resource) =>
        this.runningOf(resource) > this.share &&
        this.queue.some(({ cp }) => cp.resource !== resource && this.runningOf(cp.resource) < this.share),
      requeue: (entry) => {
        this.queue.push(entry)
        this.wakeAll()
      },
      guards: new Map<string, PagingGuard>(),
      tallies: new Map<string, SpanTally>(),
    }
  }

  /** Runs every queued partition (and those split off them) until all end or the run is aborted. */
  async run(fetch: FetchPartition): Promise<void> {
    const { signal } = this.context
    const wakeAll = () => this.wakeAll()
    signal.addEventListener('abort', wakeAll, { once: true })
    await Promise.all(Array.from({ length: this.concurrency }, () => this.worker(fetch)))
    signal.removeEventListener('abort', wakeAll)
  }

  private runningOf(resource: SyncResource): number {
    return this.running.get(resource) ?? 0
  }

  private wakeAll(): void {
    const woken = this.waiters
    this.waiters = []
    for (const wake of woken) wake()
  }

  private take(): Entry | undefined {
    const { queue } = this
    let best = -1
    for (let i = 0; i < queue.length; i++) {
      const r = (queue[i] as Entry).cp.resource
      if (best < 0 || this.runningOf(r) < this.runningOf((queue[best] as Entry).cp.resource)) best = i
    }
    return best < 0 ? undefined : queue.splice(best, 1)[0]
  }

  private async worker(fetch: FetchPartition): Promise<void> {
    const { signal } = this.context
    while (!signal.aborted) {
      const next = this.take()
      if (!next) {
        if (this.active === 0) return
        await new Promise<void>((resolve) => this.waiters.push(resolve))
        continue
      }
      const { resource } = next.cp
      this.active++
      this.running.set(resource, this.runningOf(resource) + 1)
      try {
        await fetch(next.cp, next.view, this.context)
      } finally {
        this.active--
        this.running.set(resource, (this.running.get(resource) ?? 1) - 1)
        this.wakeAll()
      }
    }
  }
}
