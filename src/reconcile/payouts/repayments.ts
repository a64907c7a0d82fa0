/**
 * What a later transfer pays that an earlier one did not. A failed, canceled or blank transfer's ledgers
 * stay owed until a later transfer of the same currency repays them; ledgers carried over without a
 * `transfer_id` stay owed until a later transfer pays them. The evidence, strongest first:
 * - `metadata`: the later transfer's metadata names the earlier transfer's id (e.g. `repays_transfer_id`);
 * - `note`: its note names the earlier transfer's id;
 * - `amount`: no link, but its amount exceeds its own ledgers' net by exactly what one earlier unpaid
 *   transfer owes (or all of them together), or by exactly the oldest ledgers left without a transfer.
 * Two earlier transfers that fit equally are an exception with its reason: nothing is guessed.
 * Every sum is in integers of one currency.
 */
import type { Transfer } from '../../domain/payouts'
import type { Compositions, TransferComposition } from './composition'
import type { LedgerFigures } from './ledger-figures'
import { problem, type PayoutProblem } from './problems'

/** Statuses of a transfer that paid nothing: what its ledgers add up to is still owed. */
export const UNPAID_STATUSES: ReadonlySet<string> = new Set(['failed', 'canceled', 'blank'])

export type RepaymentEvidence = 'metadata' | 'note' | 'amount'

export interface Repayment {
  /** The earlier transfer repaid; null: ledgers carried over without a transfer. */
  transferId: string | null
  /** The later transfer whose amount pays them. */
  byTransferId: string
  currency: string
  /** Σ net of what was owed (the earlier transfer's ledgers and what it repaid in turn). */
  amount: number
  ledgerCount: number
  evidence: RepaymentEvidence
}

export interface Repayments {
  list: Repayment[]
  /** Earlier transfer id → the id of the transfer that repays it (ids as given). */
  repaidBy: Map<string, string>
  /** Ledger id (one carried over without a transfer) → the transfer that pays it. */
  ledgerPaidBy: Map<string, string>
  problems: PayoutProblem[]
}

interface Owed {
  c: TransferComposition
  amount: number
  ledgerCount: number
}

const lower = (s: string) => s.toLowerCase()

/** Ids of other transfers a transfer's metadata names (any string value, or a list of them). */
function metadataLinks(t: Transfer, known: ReadonlyMap<string, unknown>): string[] {
  const meta = t.raw['metadata']
  if (meta === null || typeof meta !== 'object') return []
  const out: string[] = []
  for (const value of Object.values(meta as Record<string, unknown>)) {
    const parts = Array.isArray(value) ? value : typeof value === 'string' ? value.split(/[\s,;]+/) : []
    for (const p of parts)
      if (typeof p === 'string' && known.has(lower(p)) && lower(p) !== lower(t.id)) out.push(lower(p))
  }
  return [...new Set(out)]
}

/** Ids of other transfers a transfer's note names. */
function noteLinks(t: Transfer, known: ReadonlyMap<string, unknown>): string[] {
  const note = t.note === null ? '' : lower(t.note)
  if (note === '') return []
  return [...known.keys()].filter((id) => id !== lower(t.id) && note.includes(id))
}

export function findRepayments(compositions: Compositions): Repayments {
  const out: Repayments = { list: [], repaidBy: new Map(), ledgerPaidBy: new Map(), problems: [] }
  const ordered = [...compositions.transfers].sort(
    (a, b) => a.transfer.createdAt - b.transfer.createdAt || (a.transfer.id < b.transfer.id ? -1 : 1),
  )
  const known = new Map(ordered.map((c) => [lower(c.transfer.id), c]))
  const owed = new Map<string, Owed>()
  const open = openLedgers(compositions.book.counted)
  for (const c of ordered) {
    const own: Owed = { c, amount: c.ledgerNetSum, ledgerCount: c.ledgers.length }
    if (c.difference !== null && Number.isSafeInteger(c.transfer.amount))
      repaidByOne(c, own, known, owed, open, out)
    owed.set(lower(c.transfer.id), own)
  }
  return out
}

/** Ledgers in no transfer, per currency, oldest first. */
function openLedgers(counted: readonly LedgerFigures[]): Map<string, LedgerFigures[]> {
  const byCurrency = new Map<string, LedgerFigures[]>()
  for (const f of counted) {
    if (f.ledger.transferId !== null) continue
    const list = byCurrency.get(f.currency)
    if (list) list.push(f)
    else byCurrency.set(f.currency, [f])
  }
  for (const list of byCurrency.values())
    list.sort((a, b) => a.ledger.createdAt - b.ledger.createdAt || (a.ledger.id < b.ledger.id ? -1 : 1))
  return byCurrency
}

/** What `c` repays, by link, then by amount; `own` grows by what it takes on. */
function repaidByOne(
  c: TransferComposition,
  own: Owed,
  known: ReadonlyMap<string, TransferComposition>,
  owed: ReadonlyMap<string, Owed>,
  open: ReadonlyMap<string, LedgerFigures[]>,
  out: Repayments,
): void {
  const t = c.transfer
  const take = (e: Owed, evidence: RepaymentEvidence) => {
    out.repaidBy.set(e.c.transfer.id, t.id)
    out.list.push({
      transferId: e.c.transfer.id,
      byTransferId: t.id,
      currency: c.currency,
      amount: e.amount,
      ledgerCount: e.ledgerCount,
      evidence,
    })
    own.amount += e.amount
    own.ledgerCount += e.ledgerCount
  }
  const repayable = (id: string): Owed | undefined => {
    const e = owed.get(id)
    if (!e || out.repaidBy.has(e.c.transfer.id) || e.c.currency !== c.currency) return undefined
    return UNPAID_STATUSES.has(e.c.transfer.status) ? e : undefined
  }
  const byMeta = metadataLinks(t, known)
  const links: [string, RepaymentEvidence][] = [
    ...byMeta.map((id): [string, RepaymentEvidence] => [id, 'metadata']),
    ...noteLinks(t, known)
      .filter((id) => !byMeta.includes(id))
      .map((id): [string, RepaymentEvidence] => [id, 'note']),
  ]
  for (const [id, evidence] of links) {
    const e = repayable(id)
    if (e) take(e, evidence)
    else
      out.problems.push(
        problem(
          'transfer_repays_unknown',
          `Transfer ${t.id} says it repays transfer ${id}, which is not an earlier unpaid transfer in ${c.currency}.`,
          { transferId: t.id, currency: c.currency, amount: t.amount },
        ),
      )
  }
  if (links.length > 0) return
  const excess = t.amount - own.amount
  if (excess === 0) return
  const candidates = [...owed.keys()]
    .map(repayable)
    .filter((e): e is Owed => e !== undefined && e.amount !== 0)
  // What it owes: its ledgers (and what it repaid), or its own amount where that differs from them.
  const exact = candidates.filter((e) => e.amount === excess || e.c.transfer.amount === excess)
  if (exact.length > 1) {
    out.problems.push(
      problem(
        'transfer_repayment_ambiguous',
        `Transfer ${t.id} pays ${excess} more than its ledgers; transfers ${exact.map((e) => e.c.transfer.id).join(', ')} each owe exactly that, so which one it repays is not known.`,
        { transferId: t.id, currency: c.currency, amount: excess },
      ),
    )
    return
  }
  const chosen =
    exact.length === 1 ? exact : candidates.reduce((s, e) => s + e.amount, 0) === excess ? candidates : []
  for (const e of chosen) take(e, 'amount')
  if (chosen.length === 0) carriedLedgers(c, own, excess, open.get(c.currency) ?? [], out)
}

/** The oldest ledgers left without a transfer before `c` was made whose net is exactly `excess`. */
function carriedLedgers(
  c: TransferComposition,
  own: Owed,
  excess: number,
  list: readonly LedgerFigures[],
  out: Repayments,
): void {
  let sum = 0
  const taken: LedgerFigures[] = []
  for (const f of list) {
    if (f.ledger.createdAt >= c.transfer.createdAt) break
    if (out.ledgerPaidBy.has(f.ledger.id)) continue
    sum += f.net
    taken.push(f)
    if (sum === excess) break
  }
  if (sum !== excess || taken.length === 0) return
  for (const f of taken) out.ledgerPaidBy.set(f.ledger.id, c.transfer.id)
  out.list.push({
    transferId: null,
    byTransferId: c.transfer.id,
    currency: c.currency,
    amount: excess,
    ledgerCount: taken.length,
    evidence: 'amount',
  })
  own.amount += excess
  own.ledgerCount += taken.length
}
