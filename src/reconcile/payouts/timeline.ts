/**
 * A transfer's status at any instant, from its status changes: the money it moved is counted when it
 * became `paid` and taken back when it left `paid` (a failed transfer whose money came back). A transfer
 * without status changes has its current status from its creation on.
 */
import type { Transfer, TransferStatusChange } from '../../domain/payouts'
import { problem, type PayoutProblem } from './problems'

export interface TransferTimeline {
  transfer: Transfer
  /** Status changes in time order. */
  changes: TransferStatusChange[]
  /** When it first became paid (epoch ms), or null when it never was. */
  paidAt: number | null
  /** False when `paidAt` is the creation time of a paid transfer no `paid` change dates. */
  paidDated: boolean
}

export interface Timelines {
  byId: Map<string, TransferTimeline>
  problems: PayoutProblem[]
}

export function transferTimelines(
  transfers: readonly Transfer[],
  statusChanges: readonly TransferStatusChange[],
): Timelines {
  const grouped = new Map<string, TransferStatusChange[]>()
  for (const c of statusChanges) {
    const list = grouped.get(c.transferId)
    if (list) list.push(c)
    else grouped.set(c.transferId, [c])
  }
  const byId = new Map<string, TransferTimeline>()
  const problems: PayoutProblem[] = []
  for (const t of transfers) {
    const changes = (grouped.get(t.id) ?? []).sort((a, b) => a.createdAt - b.createdAt || cmp(a.id, b.id))
    let paidAt = changes.find((c) => c.newStatus === 'paid')?.createdAt ?? null
    const paidDated = paidAt !== null
    if (paidAt === null && t.status === 'paid') {
      paidAt = t.createdAt
      problems.push(
        problem('transfer_paid_without_date', `Transfer ${t.id} is paid, but no status change dates it.`, {
          transferId: t.id,
          currency: t.currency,
          amount: t.amount,
        }),
      )
    }
    byId.set(t.id, { transfer: t, changes, paidAt, paidDated })
  }
  return { byId, problems }
}

/** The status at `at` (exclusive: a change at `at` is not yet in force); null before the transfer exists. */
export function statusAt(tl: TransferTimeline, at: number): string | null {
  if (tl.transfer.createdAt >= at && (tl.changes[0]?.createdAt ?? Infinity) >= at) return null
  if (tl.changes.length === 0) return tl.transfer.status
  let status: string | null = null
  for (const c of tl.changes) {
    if (c.createdAt >= at) break
    status = c.newStatus
  }
  // Before its first recorded change, a transfer is in the change's old status (or created).
  return status ?? tl.changes[0]?.oldStatus ?? 'created'
}

/** Paid at `at`: the service's money is out of the receivable. A transfer dated paid by creation counts from then. */
export function isPaidAt(tl: TransferTimeline, at: number): boolean {
  if (tl.paidAt === null || tl.paidAt >= at) return false
  if (!tl.paidDated) return true
  return statusAt(tl, at) === 'paid'
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}
