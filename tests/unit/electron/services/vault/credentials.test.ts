import { describe, expect, it } from 'vitest'
import {
  assertUsableCredentials,
  authorizationHeader,
  checkAppToken,
  checkSecret,
  validateCredentials,
} from '../../../../../electron/services/vault/credentials'
import { DesktopApiError } from '../../../../../electron/shared/errors'
import { CANARY_CREDENTIALS, canaryLeaks, makeJwt } from '../support/fixtures'

const NOW = Date.UTC(2026, 9, 1)
const inAnHour = Math.floor(NOW / 1000) + 3600

describe('app token (JWT) checks', () => {
  it('accepts three base64url parts with JSON header and payload, and reads exp', () => {
    expect(checkAppToken(makeJwt({ exp: inAnHour }), NOW)).toEqual({ ok: true, expiresAt: inAnHour * 1000 })
    expect(checkAppToken(makeJwt(), NOW)).toEqual({ ok: true, expiresAt: null })
  })

  it('refuses malformed tokens, saying what is wrong', () => {
    const cases: [string, RegExp][] = [
      ['abc', /three base64url parts/],
      ['a.b', /three base64url parts/],
      ['a.b.c.d', /three base64url parts/],
      [`${makeJwt()}=`, /three base64url parts/],
      ['a+b.c/d.e', /three base64url parts/],
      [`${Buffer.from('not json').toString('base64url')}.e30.sig`, /header is not a JSON object/],
      [`e30.${Buffer.from('[1]').toString('base64url')}.sig`, /payload is not a JSON object/],
      [makeJwt({ exp: 'tomorrow' }), /exp claim is not a number/],
    ]
    for (const [token, message] of cases) {
      const check = checkAppToken(token, NOW)
      expect(check, token).toMatchObject({ ok: false, reason: 'app_token_malformed' })
      if (!check.ok) expect(check.message).toMatch(message)
    }
  })

  it('refuses an expired token against the injected clock', () => {
    const token = makeJwt({ exp: inAnHour })
    expect(checkAppToken(token, NOW + 3_600_000)).toMatchObject({ ok: false, reason: 'app_token_expired' })
    expect(checkAppToken(token, NOW + 3_599_999).ok).toBe(true)
  })
})

describe('secret checks', () => {
  it('refuses empty, whitespace, a dot (the header joins with one) and non-ASCII', () => {
    expect(checkSecret('sk_live_abc-123')).toBeUndefined()
    for (const bad of ['', 'a b', 'a\nb', 'a.b', 'sécret']) expect(checkSecret(bad), bad).toBeDefined()
  })
})

describe('credential errors never contain the credentials', () => {
  it('names the fields, not the values, on create/update', () => {
    const errors: unknown[] = []
    const attempts = [
      { secret: `${CANARY_CREDENTIALS.secret}.x`, appToken: CANARY_CREDENTIALS.appToken.slice(0, -1) + '=' },
      { secret: CANARY_CREDENTIALS.secret, appToken: makeJwt({ exp: 1, canary: CANARY_CREDENTIALS.secret }) },
      {
        secret: ` ${CANARY_CREDENTIALS.secret}`,
        appToken: CANARY_CREDENTIALS.appToken.split('.').slice(0, 2).join('.'),
      },
    ]
    for (const credentials of attempts) {
      try {
        validateCredentials(credentials, NOW, 'credentials')
      } catch (error) {
        errors.push(error)
      }
    }
    expect(errors).toHaveLength(3)
    for (const error of errors) {
      expect(error).toBeInstanceOf(DesktopApiError)
      const shape = (error as DesktopApiError).toShape()
      expect(shape.code).toBe('invalid_argument')
      expect(shape.details?.fields?.map((f) => f.path)).toEqual(
        expect.arrayContaining(['credentials.appToken']),
      )
      expect(canaryLeaks(JSON.stringify(shape))).toEqual([])
    }
  })

  it('an expired stored token is unauthorized with a reason, naming appToken only', () => {
    const credentials = { secret: CANARY_CREDENTIALS.secret, appToken: makeJwt({ exp: 1, canary: 'CANARY' }) }
    let caught: unknown
    try {
      assertUsableCredentials(credentials, NOW)
    } catch (error) {
      caught = error
    }
    expect(caught).toMatchObject({
      code: 'unauthorized',
      details: { reason: 'app_token_expired', fields: [{ path: 'appToken' }] },
    })
    expect(JSON.stringify((caught as DesktopApiError).toShape())).not.toContain(credentials.appToken)
  })

  it('joins secret and token with one dot in the header', () => {
    expect(authorizationHeader({ secret: 's', appToken: 'a.b.c' })).toBe('Bearer s.a.b.c')
  })
})
