/**
 * What one running sandbox's request handlers share: its data, settings, counters, limits, faults and the
 * app token's state. `startSandbox` (server.ts) builds it once; the handlers never keep state of their own.
 */
import type { Dataset } from './dataset'
import type { Faults } from './faults'
import type { SandboxCharge, SandboxShape } from './model'
import type { PayoutContext } from './payout-routes'
import type { SandboxRateLimits } from './rate-limits'
import type { Names } from './serialize'
import type { AppTokenScope, AppTokenState } from './server-options'

export interface SandboxStats {
  requests: number
  byStatus: Record<string, number>
  dropped: number
  truncated: number
  badItems: number
  /** Varied shape: 429 answers sent with no body at all. */
  bodiless429: number
}

export interface SandboxContext {
  seed: number
  shape: SandboxShape
  now: () => number
  data: Dataset
  names: Names
  stats: SandboxStats
  faults: Faults
  limits: SandboxRateLimits
  /** The rate-limit scale (1: the seed's limits). */
  scale: number
  /** false: no request is refused for its rate (the headers are still sent). */
  rateLimited: boolean
  secret: string
  /** The whole Authorization header a request must carry. */
  expectedAuth: string
  /** The control endpoint's token; undefined: the endpoint is off. */
  controlToken: string | undefined
  /** The app token's 403 faults, changeable while running. */
  token: { state: AppTokenState; scope: AppTokenScope }
  /** Brings the data to the clock (index lag, late changes) before an answer reads it. */
  catchUp(): void
  /** The payouts at the payout clock, with what their answers need. */
  payoutContext(): PayoutContext
  /** Varied shape: a charge's item with the id of its ledger once it has one. */
  withLedgerId(item: Record<string, unknown>, charge: SandboxCharge): Record<string, unknown>
}
