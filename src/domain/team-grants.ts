/**
 * Which of the login's granted merchants a local connection is: the service's merchant id (from its
 * transfers) and mode (from its records) must both agree. A connection whose merchant id is not known yet
 * (no payouts read) matches on mode alone, and the accountant confirms the choice.
 */
import type { TeamGrant } from '../../electron/shared/contract'

/** What the cache knows of a connection's identity at the service. */
export interface ConnectionIdentity {
  merchantIds: readonly string[]
  modes: readonly ('live' | 'test')[]
}

/** match: id and mode agree; mode: the id is unknown here, the mode agrees; other: it is another merchant. */
export type GrantFit = 'match' | 'mode' | 'other'

export function fitOf(grant: Pick<TeamGrant, 'merchantId' | 'mode'>, identity: ConnectionIdentity): GrantFit {
  const modeFits = identity.modes.length === 0 || identity.modes.includes(grant.mode)
  if (!modeFits) return 'other'
  if (identity.merchantIds.length === 0) return 'mode'
  return identity.merchantIds.includes(grant.merchantId) ? 'match' : 'other'
}

const ORDER: Record<GrantFit, number> = { match: 0, mode: 1, other: 2 }

/** The grants with their fit, best first (then by merchant id and mode). */
export function rankGrants<G extends TeamGrant>(
  grants: readonly G[],
  identity: ConnectionIdentity,
): { grant: G; fit: GrantFit }[] {
  return grants
    .map((grant) => ({ grant, fit: fitOf(grant, identity) }))
    .sort(
      (a, b) =>
        ORDER[a.fit] - ORDER[b.fit] ||
        a.grant.merchantId.localeCompare(b.grant.merchantId) ||
        a.grant.mode.localeCompare(b.grant.mode),
    )
}

/** The one grant that is this connection's merchant, when exactly one matches on id and mode. */
export function grantFor<G extends TeamGrant>(grants: readonly G[], identity: ConnectionIdentity): G | null {
  const matches = grants.filter((g) => fitOf(g, identity) === 'match')
  return matches.length === 1 ? (matches[0] ?? null) : null
}
