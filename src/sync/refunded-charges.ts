/**
 * Which cached charges a window's refunds have left stale: a charge whose `user_data.refunds` does not list
 * each of its refunds is fetched again (follow-up-passes.ts). Read from the refund time index's keys and
 * the charges by key, never from every record of the window.
 */
import type { ClosebookDb } from '../db/database'
import { refundsInWindow } from '../db/history-part-reads'
import type { HistoryRepository } from '../db/history-repository'
import { readInChunks } from '../db/repository-helpers'
import { recordKeyOf } from '../domain/records'

/**
 * The id of an element of a charge's `user_data.refunds`: the real service names it `refund_id`
 * (real-service.md); the seed's sandbox shape used `id`.
 */
export function refundIdOf(element: Record<string, unknown>): string | null {
  const id = element['refund_id'] ?? element['id']
  return typeof id === 'string' ? id : null
}

/** The charges of refunds created in [from, to) whose cached record does not list each of them. */
export async function staleRefundedCharges(
  db: ClosebookDb,
  history: HistoryRepository,
  connectionId: string,
  from: number,
  to: number,
): Promise<{ chargeId: string; storeId: string }[]> {
  // The window's refunds from the refund time index's keys: reading every record of the window (a first
  // sync's whole history) held the UI thread for seconds in one task.
  const refunds = await db.transaction('r', db.historyRecordTables(), () =>
    refundsInWindow(db, connectionId, from, to),
  )
  if (refunds.length === 0) return []
  // Refund ids per charge, found once: testing every charge against every refund held the UI thread
  // for 200 ms after a first sync (thousands of each).
  const refundIdsByCharge = new Map<string, string[]>()
  for (const r of refunds) {
    const ids = refundIdsByCharge.get(r.chargeId)
    if (ids) ids.push(r.resourceId)
    else refundIdsByCharge.set(r.chargeId, [r.resourceId])
  }
  const chargeIds = [...refundIdsByCharge.keys()]
  const charges = await readInChunks(chargeIds, (ids) =>
    history.getMany(
      connectionId,
      ids.map((id) => recordKeyOf('charge', id)),
    ),
  )
  const stale: { chargeId: string; storeId: string }[] = []
  chargeIds.forEach((chargeId, i) => {
    const charge = charges[i]
    if (!charge) return // not cached (e.g. created before the sync start): nothing to bring up to date
    const elements: unknown = (charge.raw.user_data as { refunds?: unknown } | undefined)?.refunds
    const listed = new Set(
      (Array.isArray(elements) ? (elements as unknown[]) : []).map((r) =>
        r !== null && typeof r === 'object' ? refundIdOf(r as Record<string, unknown>) : null,
      ),
    )
    const missing = (refundIdsByCharge.get(chargeId) ?? []).some((id) => !listed.has(id))
    if (missing) stale.push({ chargeId, storeId: charge.storeId })
  })
  return stale
}
