/**
 * A page's echo scrub: a page that holds no credential is passed on as it is (no copy of every object and
 * string), and a page that holds one anywhere (a value, a key, any depth, any of the forms) is scrubbed as
 * before, string by string.
 */
import { describe, expect, it } from 'vitest'
import { credentialScrubber, REDACTED } from '../../../../../electron/services/api-client/scrub-credentials'
import { authorizationHeader } from '../../../../../electron/services/vault/credentials'
import { CANARY_CREDENTIALS } from '../../../../support/canary'

const { secret, appToken } = CANARY_CREDENTIALS

function page(extra: Record<string, unknown> = {}): { items: object[]; has_more: boolean } {
  return {
    items: [
      { resource_id: 'a1', amount: 1200, metadata: { order_no: 'A-1', note: 'お届け 100%', ...extra } },
      { resource_id: 'a2', amount: 800, metadata: { tags: ['x', 'y'] } },
    ],
    has_more: false,
  }
}

describe('credentialScrubber(...).echoes', () => {
  it('passes a page that holds no credential on as it is', () => {
    const clean = page()
    expect(credentialScrubber(CANARY_CREDENTIALS).echoes(clean)).toBe(clean)
  })

  it.each([
    ['the secret in a value', { deep: [{ at: `x ${secret} y` }] }, `x ${REDACTED} y`],
    ['the header', { deep: [{ at: authorizationHeader(CANARY_CREDENTIALS) }] }, REDACTED],
    ['the app token spaced out', { deep: [{ at: [...appToken].join(' ') }] }, REDACTED],
    ['the secret percent-encoded', { deep: [{ at: encodeURIComponent(secret) }] }, REDACTED],
  ])('scrubs %s at any depth', (_what, extra, expected) => {
    const scrubbed = credentialScrubber(CANARY_CREDENTIALS).echoes(page(extra)) as ReturnType<typeof page>
    const item = scrubbed.items[0] as { metadata: { deep: { at: string }[]; order_no: string } }
    expect(item.metadata.deep[0]?.at).toBe(expected)
    expect(item.metadata.order_no).toBe('A-1')
    expect(JSON.stringify(scrubbed)).not.toContain(secret)
  })

  it('scrubs the secret in a key', () => {
    const scrubbed = credentialScrubber(CANARY_CREDENTIALS).echoes(page({ [`k ${secret}`]: 'v' }))
    expect(JSON.stringify(scrubbed)).toContain(`"k ${REDACTED}":"v"`)
  })

  it('leaves a credential split over two strings as the string-by-string scrub does: neither holds it', () => {
    const half = Math.floor(secret.length / 2)
    const split = page({ first: secret.slice(0, half), second: secret.slice(half) })
    const scrubbed = credentialScrubber(CANARY_CREDENTIALS).echoes(split) as ReturnType<typeof page>
    expect(scrubbed).toEqual(split)
  })
})
