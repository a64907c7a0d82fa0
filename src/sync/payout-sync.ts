/**
 * Syncs a connection's payouts after its records (`api:payoutPage` through main's one scheduler): the
 * merchant's configuration and bank accounts, every transfer, and the ledgers and status changes of each
 * transfer that can still change. A transfer whose details were read to the end at a final status is
 * never read again, but by "Verify month" for the transfers that month's money went into.
 *
 * Guarantees:
 * - Each page is stored with the state saying where the read stands, in one transaction; an interrupted
 *   run resumes a transfer's details after its last stored page. Items are replaced by id, so a page read
 *   twice adds nothing.
 * - A bad item is quarantined with its reason; the rest of its page is stored.
 * - A token that may not read payouts (403) ends the payout sync, keeps what was cached and records why;
 *   it never fails the records' sync, which ran before. No error of the payout sync escapes `run`.
 */
import type {
  PayoutPageArgs,
  PayoutPageResult,
  PayoutQuarantined,
} from '../../electron/shared/contract/payouts'
import { DesktopApiError } from '../../electron/shared/errors'
import type { BankAccountItem } from '../../electron/shared/payouts-api'
import type { PayoutQuarantineRow, PayoutSyncState, TransferRow } from '../db/payout-rows'
import type { PayoutsRepository } from '../db/payouts-repository'
import { FINAL_TRANSFER_STATUSES, type PayoutAccess } from '../domain/payouts'
import { bankAccountOf, ledgerRowOf, payoutConfigOf, statusChangeOf, transferRowOf } from './payout-records'

export interface PayoutApiPort {
  payoutPage(args: PayoutPageArgs): Promise<PayoutPageResult>
  /** Drops the job's queued calls in main (they end as `cancelled`); absent: only no new call starts. */
  cancelJob?(jobId: string): Promise<unknown>
}

export interface PayoutSyncRequest {
  connectionId: string
  jobId: string
  /** "Verify month": the transfers this window's money went into are read again whole (epoch ms). */
  verify?: { from: number; to: number }
}

export interface PayoutSyncResult {
  access: PayoutAccess
  /** Every transfer and the details it needed were read. */
  complete: boolean
  requests: number
  transfers: number
  /** Transfers whose ledgers and status changes were read in this run. */
  detailsRead: number
  quarantined: number
  /** Why the run stopped early (network, cancelled, …): the code and the host's message. */
  error?: { code: string; message: string }
}

/** Single ledgers fetched per run for charges whose ledger no transfer listed (open ledgers). */
export const OPEN_LEDGER_FETCHES_PER_RUN = 50
const PAGE = 100
/** A settlement period this long after its month still pays that month's money (monthly schedules). */
const VERIFY_REACH_MS = 62 * 86_400_000

type PageOf<K extends PayoutPageResult['kind']> = Extract<PayoutPageResult, { kind: K }>

function quarantineKind(kind: string): string {
  if (kind === 'transfers' || kind === 'transfer') return 'transfer'
  if (kind === 'transfer_ledgers' || kind === 'ledger') return 'ledger'
  if (kind === 'transfer_status_changes') return 'status_change'
  if (kind === 'bank_accounts') return 'bank_account'
  return kind
}

function quarantineRows(
  connectionId: string,
  items: readonly PayoutQuarantined[] | undefined,
  transferId: string | null,
  seenAt: number,
): PayoutQuarantineRow[] {
  return (items ?? []).map((q) => ({
    connectionId,
    id: `${quarantineKind(q.kind)}:${q.itemId ?? q.request}`,
    kind: quarantineKind(q.kind),
    itemId: q.itemId,
    transferId,
    reason: q.reason,
    issues: q.issues,
    request: q.request,
    raw: q.raw,
    seenAt,
  }))
}

/** Whether the transfer's ledgers may hold money of the verified window. */
function reaches(t: TransferRow, window: { from: number; to: number }): boolean {
  if (t.createdAt >= window.from && t.createdAt < window.to + VERIFY_REACH_MS) return true
  const from = t.periodFrom ? Date.parse(`${t.periodFrom}T00:00:00Z`) : NaN
  const to = t.periodTo ? Date.parse(`${t.periodTo}T00:00:00Z`) : NaN
  return from <= window.to && to >= window.from - 86_400_000
}

/** A failed payout call, carrying the contract's error as it came. */
class Stop extends Error {
  constructor(readonly failure: DesktopApiError) {
    super(failure.message)
  }
}

function asApiError(error: unknown): DesktopApiError {
  if (error instanceof Stop) return error.failure
  if (error instanceof DesktopApiError) return error
  return new DesktopApiError('internal', error instanceof Error ? error.message : String(error))
}

type QueryOf<K extends PayoutPageArgs['kind']> = Omit<
  Extract<PayoutPageArgs, { kind: K }>,
  'connectionId' | 'jobId' | 'priority'
>

export class PayoutSync {
  private requests = 0
  private quarantined = 0
  /** The run in progress: its job, and whether Cancel was asked. */
  private current: { jobId: string; cancelled: boolean } | null = null

  constructor(
    private readonly api: PayoutApiPort,
    private readonly repo: PayoutsRepository,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Stops the run in progress: no payout call starts after this, the job's queued calls are dropped in
   * main, and the run ends with `cancelled`, keeping every page stored so far (the next sync resumes).
   */
  async cancel(): Promise<void> {
    const run = this.current
    if (!run || run.cancelled) return
    run.cancelled = true
    await this.api.cancelJob?.(run.jobId).catch(() => undefined)
  }

  async run(request: PayoutSyncRequest): Promise<PayoutSyncResult> {
    this.requests = 0
    this.quarantined = 0
    const run = { jobId: request.jobId, cancelled: false }
    this.current = run
    try {
      return await this.runOnce(request, run)
    } finally {
      if (this.current === run) this.current = null
    }
  }

  private async runOnce(request: PayoutSyncRequest, run: { cancelled: boolean }): Promise<PayoutSyncResult> {
    const { connectionId } = request
    let state = await this.repo.syncState(connectionId)
    const summary = { transfers: 0, detailsRead: 0 }
    const result = (complete: boolean, error?: DesktopApiError): PayoutSyncResult => ({
      access: state.access,
      complete,
      requests: this.requests,
      ...summary,
      quarantined: this.quarantined,
      ...(error ? { error: { code: error.code, message: error.message } } : {}),
    })
    try {
      state = await this.readAccount(request, state)
      const transfers = await this.readTransfers(request)
      summary.transfers = transfers.length
      for (const t of this.needingDetails(transfers, state, request.verify)) {
        state = await this.readDetails(request, t, state)
        summary.detailsRead++
      }
      await this.readOpenLedgers(request)
      state = { ...state, lastRunAt: this.now(), complete: true, details: null }
      await this.repo.putState(state)
      return result(true)
    } catch (error) {
      const shaped = run.cancelled
        ? new DesktopApiError('cancelled', 'The payout sync was cancelled.')
        : asApiError(error)
      if (shaped.code === 'forbidden') {
        const reason = shaped.details?.['reason']
        state = {
          ...(await this.repo.syncState(connectionId)),
          access: { code: 'forbidden', serviceCode: typeof reason === 'string' ? reason : 'FORBIDDEN' },
          lastRunAt: this.now(),
          complete: false,
        }
      } else {
        state = { ...(await this.repo.syncState(connectionId)), lastRunAt: this.now(), complete: false }
      }
      await this.repo.putState(state)
      return result(false, shaped)
    }
  }

  private async page<K extends PayoutPageResult['kind']>(
    request: PayoutSyncRequest,
    args: QueryOf<K>,
  ): Promise<PageOf<K>> {
    if (this.current?.cancelled)
      throw new Stop(new DesktopApiError('cancelled', 'The payout sync was cancelled.'))
    this.requests++
    try {
      const page = await this.api.payoutPage({
        ...args,
        connectionId: request.connectionId,
        jobId: request.jobId,
        priority: 'background',
      } as unknown as PayoutPageArgs)
      this.quarantined += page.quarantined?.length ?? 0
      return page as PageOf<K>
    } catch (error) {
      throw new Stop(asApiError(error))
    }
  }

  private async readAccount(request: PayoutSyncRequest, state: PayoutSyncState): Promise<PayoutSyncState> {
    const { connectionId } = request
    const me = await this.page<'me'>(request, { kind: 'me' })
    const syncedAt = this.now()
    const configItem = me.items[0]
    const accounts: BankAccountItem[] = []
    for (let cursor: string | undefined, n = 0; n < 100; n++) {
      const page = await this.page<'bank_accounts'>(request, {
        kind: 'bank_accounts',
        paging: { limit: PAGE, ...(cursor ? { cursor } : {}) },
      })
      accounts.push(...page.items)
      if (!page.hasMore || !page.cursorAfter) break
      cursor = page.cursorAfter
    }
    const next: PayoutSyncState = { ...state, access: { code: 'ok' } }
    await this.repo.putAccount(
      configItem ? payoutConfigOf(connectionId, configItem, syncedAt) : null,
      accounts.map((a) => bankAccountOf(connectionId, a)),
      next,
    )
    return next
  }

  /** Every transfer, newest first, a page per transaction: the list is short (a year is a few pages). */
  private async readTransfers(request: PayoutSyncRequest): Promise<TransferRow[]> {
    const { connectionId } = request
    const out: TransferRow[] = []
    for (let cursor: string | undefined, n = 0; n < 10_000; n++) {
      const page = await this.page<'transfers'>(request, {
        kind: 'transfers',
        paging: { limit: PAGE, ...(cursor ? { cursor } : {}) },
      })
      const syncedAt = this.now()
      const items = page.items
      const written = await this.repo.putTransfers(
        connectionId,
        (before) =>
          items.map((i) => transferRowOf(connectionId, i, syncedAt, before.get(i.id.toLowerCase()))),
        items.map((i) => i.id.toLowerCase()),
        quarantineRows(connectionId, page.quarantined, null, syncedAt),
      )
      out.push(...written)
      if (!page.hasMore || !page.cursorAfter) break
      cursor = page.cursorAfter
    }
    return out
  }

  /** The interrupted one first, then every transfer that can still change or was never read whole. */
  private needingDetails(
    transfers: readonly TransferRow[],
    state: PayoutSyncState,
    verify: PayoutSyncRequest['verify'],
  ): TransferRow[] {
    const needs = (t: TransferRow) =>
      t.detailsReadAt !== t.status ||
      !FINAL_TRANSFER_STATUSES.has(t.status) ||
      (verify !== undefined && reaches(t, verify))
    const resumed = state.details?.transferId
    const list = transfers.filter((t) => t.id === resumed || needs(t))
    return list.sort((a, b) => Number(b.id === resumed) - Number(a.id === resumed))
  }

  /**
   * A transfer's status changes, then its ledgers, each page stored with the state; resumes after the
   * last stored page of an interrupted read (then ledgers it no longer lists are not looked for).
   */
  private async readDetails(
    request: PayoutSyncRequest,
    transfer: TransferRow,
    initial: PayoutSyncState,
  ): Promise<PayoutSyncState> {
    const transferId = transfer.id
    const resume = initial.details?.transferId === transferId ? initial.details : null
    const seen = resume ? null : new Set<string>()
    let state = initial
    if (!resume || resume.part === 'status_changes')
      state = await this.readStatusChanges(request, transferId, resume?.cursor ?? undefined, state)
    const from = resume?.part === 'ledgers' ? (resume.cursor ?? undefined) : undefined
    state = await this.readLedgers(request, transferId, from, seen, state)
    state = { ...state, details: null }
    await this.repo.finishDetails(request.connectionId, transferId, transfer.status, seen, state)
    return state
  }

  private async readStatusChanges(
    request: PayoutSyncRequest,
    transferId: string,
    from: string | undefined,
    initial: PayoutSyncState,
  ): Promise<PayoutSyncState> {
    const { connectionId } = request
    let state = initial
    let cursor = from
    for (let n = 0; n < 10_000; n++) {
      const page = await this.page<'transfer_status_changes'>(request, {
        kind: 'transfer_status_changes',
        transferId,
        paging: { limit: PAGE, ...(cursor ? { cursor } : {}) },
      })
      const done = !page.hasMore || !page.cursorAfter
      state = {
        ...state,
        details: done
          ? { transferId, part: 'ledgers', cursor: null }
          : { transferId, part: 'status_changes', cursor: page.cursorAfter ?? null },
      }
      await this.repo.putDetailsPage(
        { changes: page.items.map((c) => statusChangeOf(connectionId, c)) },
        quarantineRows(connectionId, page.quarantined, transferId, this.now()),
        state,
      )
      if (done) break
      cursor = page.cursorAfter
    }
    return state
  }

  /** The transfer's ledgers from `from` on; `seen` collects their ids (null: not needed). */
  private async readLedgers(
    request: PayoutSyncRequest,
    transferId: string,
    from: string | undefined,
    seen: Set<string> | null,
    initial: PayoutSyncState,
  ): Promise<PayoutSyncState> {
    const { connectionId } = request
    let state = initial
    let cursor = from
    for (let n = 0; n < 100_000; n++) {
      const page = await this.page<'transfer_ledgers'>(request, {
        kind: 'transfer_ledgers',
        transferId,
        paging: { limit: PAGE, ...(cursor ? { cursor } : {}) },
      })
      const syncedAt = this.now()
      // Listed under this transfer: it is in it, whether or not the item repeats the id.
      const ledgers = page.items.map((l) => ({
        ...ledgerRowOf(connectionId, l, syncedAt),
        transferId,
        transferKey: transferId,
      }))
      for (const l of ledgers) seen?.add(l.id)
      const done = !page.hasMore || !page.cursorAfter
      state = {
        ...state,
        details: { transferId, part: 'ledgers', cursor: done ? null : (page.cursorAfter ?? null) },
      }
      await this.repo.putDetailsPage(
        { ledgers },
        quarantineRows(connectionId, page.quarantined, transferId, syncedAt),
        state,
      )
      if (done) break
      cursor = page.cursorAfter
    }
    return state
  }

  /** Ledgers charges point to that no transfer listed yet: read one by one, a bounded number per run. */
  private async readOpenLedgers(request: PayoutSyncRequest): Promise<void> {
    const { connectionId } = request
    const ids = await this.repo.linkedLedgerIdsWithoutLedger(connectionId, OPEN_LEDGER_FETCHES_PER_RUN)
    for (const ledgerId of ids) {
      let page: PageOf<'ledger'>
      try {
        page = await this.page<'ledger'>(request, { kind: 'ledger', ledgerId })
      } catch (error) {
        // A ledger the service does not know (yet) is not a reason to stop: it stays unread.
        if (error instanceof Stop && error.failure.code === 'not_found') continue
        throw error
      }
      const syncedAt = this.now()
      await this.repo.putLedgers(
        page.items.map((l) => ledgerRowOf(connectionId, l, syncedAt)),
        quarantineRows(connectionId, page.quarantined, null, syncedAt),
      )
    }
  }
}
