/**
 * A sandbox transfer's life: the status changes from `created` to `paid`, `failed`, `canceled` or `blank`
 * over its period's calendar, of which only those the payout clock has reached are shown.
 */
import { DAY_MS, type PayoutCalendar } from './payout-calendar'
import { Prng } from './prng'

export interface SandboxStatusChange {
  id: string
  transferId: string
  oldStatus: string | null
  newStatus: string
  reason: string | null
  createdUs: number
}

export interface PeriodContext {
  calendar: PayoutCalendar
  seed: number
  currency: string
  index: number
  clockMs: number
  bankAccountId: string
}

export type Outcome = 'paid' | 'failed' | 'canceled'

/** Status changes of a transfer over its life; only those the clock has reached are kept. */
export function lifecycle(
  ctx: PeriodContext,
  transferId: string,
  outcome: Outcome | 'blank',
  event: (ms: number) => void,
): SandboxStatusChange[] {
  const created = ctx.calendar.periodStartMs(ctx.index + 1) + 3600_000
  const payMs = ctx.calendar.payoutDayMs(ctx.index)
  const steps: [string, string, string | null, number][] =
    outcome === 'blank'
      ? [['created', 'blank', 'under the minimum payout: carried over', created + 60_000]]
      : outcome === 'canceled'
        ? [
            ['created', 'approved', null, created + DAY_MS],
            [
              'approved',
              'canceled',
              'canceled by the service: paid with the next transfer',
              created + 2 * DAY_MS,
            ],
          ]
        : [
            ['created', 'approved', null, created + DAY_MS],
            ['approved', 'processing', null, payMs - DAY_MS],
            outcome === 'failed'
              ? ['processing', 'failed', 'the bank refused the transfer: account closed', payMs]
              : ['processing', 'paid', null, payMs],
          ]
  event(created)
  for (const [, , , at] of steps) event(at)
  return steps
    .filter(([, , , at]) => at <= ctx.clockMs)
    .map(([oldStatus, newStatus, reason, at], i) => ({
      id: new Prng(`status|${ctx.seed}|${transferId}|${i}`).uuid(),
      transferId,
      oldStatus,
      newStatus,
      reason,
      createdUs: at * 1000,
    }))
}
