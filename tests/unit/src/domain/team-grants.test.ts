// Picking a connection's team merchant from the login's grants: id and mode must both agree to match.
import { describe, expect, it } from 'vitest'
import type { TeamGrant } from '../../../../electron/shared/contract'
import { grantFor, rankGrants } from '../../../../src/domain/team-grants'

const grant = (
  merchantId: string,
  mode: 'live' | 'test',
  role: TeamGrant['role'] = 'preparer',
): TeamGrant => ({
  merchantId,
  mode,
  name: '',
  role,
  stores: [],
})

describe('the team merchant of a connection', () => {
  const grants = [grant('mer_b', 'test'), grant('mer_a', 'live'), grant('mer_a', 'test', 'reviewer')]

  it('is the one grant whose merchant id and mode the connection has, ranked first', () => {
    const identity = { merchantIds: ['mer_a'], modes: ['test' as const] }
    expect(grantFor(grants, identity)).toEqual(grant('mer_a', 'test', 'reviewer'))
    expect(rankGrants(grants, identity).map((g) => [g.grant.merchantId, g.grant.mode, g.fit])).toEqual([
      ['mer_a', 'test', 'match'],
      ['mer_a', 'live', 'other'],
      ['mer_b', 'test', 'other'],
    ])
  })

  it('is not guessed when the merchant id is unknown or two grants fit: the accountant picks', () => {
    expect(grantFor(grants, { merchantIds: [], modes: ['test'] })).toBeNull()
    expect(rankGrants(grants, { merchantIds: [], modes: ['test'] }).map((g) => g.fit)).toEqual([
      'mode',
      'mode',
      'other',
    ])
    expect(grantFor(grants, { merchantIds: ['mer_a'], modes: ['live', 'test'] })).toBeNull()
    expect(grantFor(grants, { merchantIds: ['mer_c'], modes: ['test'] })).toBeNull()
  })
})
