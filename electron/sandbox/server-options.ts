/**
 * What `startSandbox` accepts, and the checks that turn it into the settings a running sandbox uses: every
 * option refused with the field at fault (SandboxInputError) before anything is generated or listened on.
 */
import { SandboxInputError } from './dataset'
import type { FaultOptions } from './faults'
import { DEFAULT_SHAPE, SANDBOX_SHAPES, usFromIso, type SandboxShape } from './model'
import {
  CARRY_OVER_READINGS,
  DEFAULT_MIN_TRANSFER_PAYOUT,
  LEDGER_AMOUNT_READINGS,
  TRANSFER_FEE_READINGS,
  TRANSFER_SCHEDULES,
  type PayoutOptions,
  type TransferSchedule,
} from './payouts'

/** What the app token may do: `outdated` answers 403 OUTDATED_APP_TOKEN to everything. */
export type AppTokenState = 'valid' | 'outdated'
/** `store`: a store-scoped token, refused (403 INVALID_PERMISSIONS) on the all-stores paths. */
export type AppTokenScope = 'merchant' | 'store'

/**
 * Varied shape: one queued late change is applied every this many ms of the sandbox's clock. Slow enough
 * that a test's sandbox (minutes at most) meets none unless it asks; the demo shows one every few syncs.
 */
export const DEFAULT_LATE_CHANGE_EVERY_MS = 120_000

export const DEFAULT_FROM = '2026-07-01T00:00:00Z'
export const DEFAULT_TO = '2026-11-01T00:00:00Z'

export interface SandboxOptions {
  /** 0 (default): a free port. */
  port?: number
  /** `seed`: the seed's single shape; `varied`: the real service's variety (README.md). Default DEFAULT_SHAPE. */
  shape?: SandboxShape
  /**
   * Varied shape: apply one queued late change to an old record every this many ms of `now()` since the
   * start (default DEFAULT_LATE_CHANGE_EVERY_MS); 0: only on demand (control endpoint, applyLateChanges).
   */
  lateChangeEveryMs?: number
  /**
   * Records added while running (growth, control endpoint, `data.addCharge`) appear in the lists only up
   * to this long after their `created_on` (seeded per record), like the real service's search index.
   * Default 0: at once. Any shape.
   */
  indexLagMs?: number
  /** 403 faults of the app token (default valid, merchant-wide); changeable while running. */
  appTokenState?: AppTokenState
  appTokenScope?: AppTokenScope
  seed?: number
  stores?: number
  records?: number
  /** ISO-8601; the generated records' range, `from` inclusive, `to` exclusive. */
  from?: string
  to?: string
  secret?: string
  appToken?: string
  /** Multiplies the seed's rate limits (burst and per minute). */
  rateScale?: number
  /** false: no rate limits at all (the headers are still sent). */
  rateLimit?: boolean
  /** New records (mostly charges, some refunds and status changes) per minute while running. */
  growthPerMinute?: number
  /** Enables the control endpoint (`/__control/*`), protected by `controlToken` (generated if absent). */
  control?: boolean
  controlToken?: string
  faults?: FaultOptions
  /** Clock for rate limits, storms and the time of new records (tests may inject one). */
  now?: () => number
  /** The readings the public sources leave open (README.md, "Payouts"); each has a default. */
  payouts?: PayoutOptions
  /**
   * The payout clock (ms): periods close, transfers appear and their statuses change when it passes
   * them. Default: `now()`, but never before 20 days after `to`, so the last generated month is paid.
   */
  payoutClock?: () => number
}

/** The options once checked, with their defaults. */
export interface SandboxSettings {
  now: () => number
  seed: number
  shape: SandboxShape
  lateChangeEveryMs: number
  indexLagMs: number
  fromUs: number
  toUs: number
  storeCount: number
  records: number
  scale: number
}

/** The payout readings and the smallest transfer, checked. */
export interface PayoutSettings {
  readings: Required<Pick<PayoutOptions, 'ledgerAmounts' | 'transferFee' | 'carryOver'>>
  minTransferPayout: number
  transferSchedule: TransferSchedule
}

/** Checks `options` (throwing SandboxInputError naming the field) and fills in the defaults. */
export function checkOptions(options: SandboxOptions): SandboxSettings {
  const now = options.now ?? Date.now
  const seed = options.seed ?? 42
  const shape = options.shape ?? DEFAULT_SHAPE
  if (!(SANDBOX_SHAPES as readonly string[]).includes(shape))
    throw new SandboxInputError('shape', `must be one of ${SANDBOX_SHAPES.join(', ')}`)
  const lateChangeEveryMs = options.lateChangeEveryMs ?? DEFAULT_LATE_CHANGE_EVERY_MS
  if (!(lateChangeEveryMs >= 0)) throw new SandboxInputError('lateChangeEveryMs', 'must be 0 or more')
  const indexLagMs = options.indexLagMs ?? 0
  if (!(indexLagMs >= 0)) throw new SandboxInputError('indexLagMs', 'must be 0 or more')
  const fromUs = usFromIso(options.from ?? DEFAULT_FROM)
  const toUs = usFromIso(options.to ?? DEFAULT_TO)
  if (fromUs === undefined) throw new SandboxInputError('from', 'must be an ISO-8601 timestamp')
  if (toUs === undefined) throw new SandboxInputError('to', 'must be an ISO-8601 timestamp')
  if (toUs <= fromUs) throw new SandboxInputError('to', 'must be after from')
  const storeCount = options.stores ?? 3
  const records = options.records ?? 5000
  if (!Number.isInteger(storeCount) || storeCount < 1 || storeCount > 1000)
    throw new SandboxInputError('stores', 'must be a whole number from 1 to 1000')
  if (!Number.isInteger(records) || records < 0 || records > 5_000_000)
    throw new SandboxInputError('records', 'must be a whole number from 0 to 5000000')
  const scale = options.rateScale ?? 1
  if (!(scale > 0)) throw new SandboxInputError('rateScale', 'must be a positive number')
  if (options.secret !== undefined && !/^[\x21-\x2d\x2f-\x7e]{1,1024}$/.test(options.secret))
    throw new SandboxInputError('secret', 'must be 1–1024 visible ASCII characters without a dot')
  if (
    options.appToken !== undefined &&
    !/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(options.appToken)
  )
    throw new SandboxInputError('appToken', 'must be a JWT (three base64url parts)')
  return {
    now,
    seed,
    shape,
    lateChangeEveryMs,
    indexLagMs,
    fromUs,
    toUs,
    storeCount,
    records,
    scale,
  }
}

/** Checks the payout options (throwing SandboxInputError naming the field) and fills in the defaults. */
export function checkPayoutOptions(options: SandboxOptions): PayoutSettings {
  const readings = checkReadings(options.payouts)
  const minTransferPayout = options.payouts?.minTransferPayout ?? DEFAULT_MIN_TRANSFER_PAYOUT
  if (!Number.isInteger(minTransferPayout) || minTransferPayout < 0)
    throw new SandboxInputError('minTransferPayout', 'must be a whole number, 0 or more')
  const transferSchedule = options.payouts?.transferSchedule ?? 'monthly'
  if (!TRANSFER_SCHEDULES.includes(transferSchedule))
    throw new SandboxInputError('transferSchedule', `must be one of ${TRANSFER_SCHEDULES.join(', ')}`)
  return { readings, minTransferPayout, transferSchedule }
}

function checkReadings(payouts: PayoutOptions | undefined): PayoutSettings['readings'] {
  const readings = {
    ledgerAmounts: payouts?.ledgerAmounts ?? 'net',
    transferFee: payouts?.transferFee ?? 'manual_ledger',
    carryOver: payouts?.carryOver ?? 'no_transfer',
  } as const
  if (!LEDGER_AMOUNT_READINGS.includes(readings.ledgerAmounts))
    throw new SandboxInputError('ledgerAmounts', `must be one of ${LEDGER_AMOUNT_READINGS.join(', ')}`)
  if (!TRANSFER_FEE_READINGS.includes(readings.transferFee))
    throw new SandboxInputError('transferFee', `must be one of ${TRANSFER_FEE_READINGS.join(', ')}`)
  if (!CARRY_OVER_READINGS.includes(readings.carryOver))
    throw new SandboxInputError('carryOver', `must be one of ${CARRY_OVER_READINGS.join(', ')}`)
  return readings
}
