/**
 * Marking from the ledger: the selection or every record matching the filter, with a note; the last batch
 * can be undone; a bulk mark shows its phase and can be cancelled. Marks are planned and written with
 * their audit row in one transaction (MarkingService.planAndApply); the rules are the pure plans of
 * src/reconcile/marking.
 */
import { ref, shallowRef, toRaw, type Ref, type ShallowRef } from 'vue'
import { appCache } from '../../db/cache'
import type { HistoryFilter } from '../../db/history-repository'
import type { AuditEntry, HistoryRecord, MarkRef, RecordKey } from '../../domain/records'
import { toAppError } from '../../platform/app-error'
import { planMarks, planUndo, type MarkAction, type MarkSubject } from '../../reconcile/marking'
import { periodOf } from '../../domain/periods'
import type { LedgerNotice } from './notice'
import type { LedgerQuery } from './query'
import type { RowFacts } from './row-facts'
import type { LedgerSelection } from './selection'

export interface LedgerMarking {
  /** The audit rows of the last mark batch (what undo reverts), or null. */
  lastBatch: ShallowRef<AuditEntry[] | null>
  /** A bulk mark or undo in progress (for the view's progress line and its Cancel), or null. */
  marking: Ref<{ phase: 'reading' | 'writing'; records: number } | null>
  /** Who the audit rows name: the accountant's name from the settings. */
  actor: Ref<string>
  loadActor: () => Promise<void>
  applyMarks: (action: MarkAction, target: 'selection' | 'matching', note?: string) => Promise<void>
  /** Cancels a running bulk mark; its transaction is aborted, so no mark or audit row of it lands. */
  cancelMarking: () => void
  undo: () => Promise<void>
}

export function useLedgerMarking(
  query: LedgerQuery,
  selection: Pick<LedgerSelection, 'selection'>,
  facts: Pick<RowFacts, 'updateMarks'>,
  notice: Ref<LedgerNotice | null>,
): LedgerMarking {
  const lastBatch = shallowRef<AuditEntry[] | null>(null)
  /** The records of lastBatch by key: their time locates their marks when the batch is undone. */
  let lastBatchRefs: MarkRef[] = []
  const marking = ref<{ phase: 'reading' | 'writing'; records: number } | null>(null)
  let markingAbort: AbortController | null = null
  const actor = ref('accountant')
  /**
   * Marks and undos run one after another, in the order asked: a key pressed while a batch is being
   * written (a note then "m", or Ctrl+Z right after "m") waits for it instead of being dropped or undoing
   * the batch before it. Idle, the work starts at once (its progress shows synchronously).
   */
  let tail: Promise<void> | null = null
  function inTurn(work: () => Promise<void>): Promise<void> {
    const run = tail ? tail.then(work) : work()
    const settled = run.catch(() => undefined)
    tail = settled
    void settled.then(() => {
      if (tail === settled) tail = null
    })
    return run
  }

  async function loadActor(): Promise<void> {
    const name = await appCache().settings.getRaw('actorName')
    actor.value = typeof name === 'string' && name.trim() ? name : 'accountant'
  }

  /**
   * Marks the selection (the grid's loaded rows) or every record matching the filter (their digests, one
   * read per day: HistoryRepository.markTargets); then the current marks and locks are read, the plan made
   * and written with its audit row in one transaction (MarkingService.planAndApply), so a lock or mark
   * changed meanwhile is seen. The grid's marks map is replaced once.
   */
  function applyMarks(action: MarkAction, target: 'selection' | 'matching', note?: string): Promise<void> {
    const filter = query.currentFilter()
    if (!filter) return Promise.resolve()
    // What was selected when asked, not when the batch's turn comes.
    const wanted = new Set(toRaw(selection.selection.value))
    return inTurn(() => markNow(filter, wanted, action, target, note))
  }

  async function markNow(
    filter: HistoryFilter,
    wanted: ReadonlySet<RecordKey>,
    action: MarkAction,
    target: 'selection' | 'matching',
    note: string | undefined,
  ): Promise<void> {
    const cache = appCache()
    const abort = (markingAbort = new AbortController())
    marking.value = { phase: 'reading', records: 0 }
    try {
      let records: MarkSubject[]
      if (target === 'matching') {
        records = await cache.history.markTargets(filter)
      } else {
        // A selection is made of loaded rows: take them from the grid, and read only what is gone.
        const loaded = [...toRaw(query.rows.value).values()].filter((r) => wanted.has(r.key))
        const have = new Set(loaded.map((r) => r.key))
        const missing = [...wanted].filter((k) => !have.has(k))
        const found = missing.length > 0 ? await cache.history.getMany(filter.connectionId, missing) : []
        records = [...loaded, ...found.filter((r): r is HistoryRecord => r !== undefined)]
      }
      if (abort.signal.aborted) {
        notice.value = { kind: 'cancelled' }
        return
      }
      if (records.length === 0) return
      marking.value = { phase: 'writing', records: records.length }
      const now = Date.now()
      const { plan } = await cache.marking.planAndApply(
        filter.connectionId,
        records,
        (current) =>
          planMarks({
            action,
            records,
            marks: current.marks,
            locks: current.locks,
            ...(note !== undefined ? { note } : {}),
            actor: actor.value,
            now,
            timeZone: query.timeZone.value,
          }),
        { signal: abort.signal },
      )
      const changed = plan.puts.length + plan.deletes.length
      if (changed > 0) {
        const touched = new Set(plan.audit.map((e) => e.key))
        lastBatchRefs = records
          .filter((r) => touched.has(r.key))
          .map((r) => ({ key: r.key, createdAt: r.createdAt }))
        lastBatch.value = plan.audit
      }
      facts.updateMarks(plan.puts, plan.deletes)
      notice.value =
        plan.refused.length > 0 && changed === 0
          ? { kind: 'locked', period: refusedPeriod(records, plan.refused[0]?.key) }
          : { kind: 'marked', action, changed, refused: plan.refused.length }
      marking.value = null
      if (query.filters.reconciled) await query.refresh()
    } catch (e) {
      // A cancel rolled the transaction back: nothing changed, and the notice says so.
      notice.value = abort.signal.aborted ? { kind: 'cancelled' } : { kind: 'error', error: toAppError(e) }
    } finally {
      marking.value = null
      markingAbort = null
    }
  }

  function cancelMarking(): void {
    markingAbort?.abort()
  }

  function refusedPeriod(records: readonly MarkSubject[], key: RecordKey | undefined): string {
    const r = records.find((x) => x.key === key)
    return r ? periodOf(r.createdAt, query.timeZone.value) : (query.filters.period ?? '')
  }

  function undo(): Promise<void> {
    return inTurn(undoNow)
  }

  async function undoNow(): Promise<void> {
    const batch = lastBatch.value
    const connectionId = query.connectionId.value
    if (!batch || !connectionId) return
    try {
      const { plan } = await appCache().marking.planAndApply(connectionId, lastBatchRefs, (current) =>
        planUndo({
          entries: batch,
          marks: current.marks,
          locks: current.locks,
          actor: actor.value,
          now: Date.now(),
        }),
      )
      const changed = plan.puts.length + plan.deletes.length
      facts.updateMarks(plan.puts, plan.deletes)
      lastBatch.value = null
      notice.value = { kind: 'undone', changed, refused: plan.refused.length }
      if (query.filters.reconciled) await query.refresh()
    } catch (e) {
      notice.value = { kind: 'error', error: toAppError(e) }
    }
  }

  return { lastBatch, marking, actor, loadActor, applyMarks, cancelMarking, undo }
}
