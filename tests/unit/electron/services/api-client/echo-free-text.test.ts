import { Buffer } from 'node:buffer'
import { describe, expect, it } from 'vitest'
import { credentialScrubber } from '../../../../../electron/services/api-client/scrub-credentials'
import { CANARY_CREDENTIALS, CANARY_SECRET, CANARY_TOKEN, canaryLeaks } from '../support/fixtures'

const scrubber = credentialScrubber(CANARY_CREDENTIALS)
/** `text` with one character of `value` written as a JSON unicode escape, so the text never holds it. */
const escapedOne = (value: string): string =>
  `${value.slice(0, 4)}\\u${value.charCodeAt(4).toString(16).padStart(4, '0')}${value.slice(5)}`

/** Raw page texts, as a server may write them: each must come out as parse-then-scrub does. */
const texts: Record<string, string> = {
  'no credential at all': JSON.stringify({
    items: [{ name: 'Shop', note: 'a 50% off sale' }],
    has_more: false,
  }),
  'the secret as written': `{"items":[{"note":"see ${CANARY_SECRET} here"}]}`,
  'the secret as a key': `{"items":[{"${CANARY_SECRET}":"a field name"}]}`,
  'the secret with a character escaped': `{"items":[{"note":"${escapedOne(CANARY_SECRET)}"}]}`,
  'the app token with a character escaped, in a key': `{"items":[{"${escapedOne(CANARY_TOKEN)}":1}]}`,
  'the secret spaced out and upper case': `{"items":[{"note":"${[...CANARY_SECRET.toUpperCase()].join(' ')}"}]}`,
  'the secret percent-encoded, letter by letter': `{"items":[{"note":"${[...CANARY_SECRET]
    .map((c) => `%${c.charCodeAt(0).toString(16)}`)
    .join('')}"}]}`,
  'the header in base64': `{"items":[{"note":"${Buffer.from(
    `Bearer ${CANARY_SECRET}.${CANARY_TOKEN}`,
  ).toString('base64')}"}]}`,
  'an escaped quote beside the secret': `{"items":[{"note":"\\"${CANARY_SECRET}\\""}]}`,
}

describe('parsing a page with its echoes scrubbed, from its text', () => {
  for (const [name, text] of Object.entries(texts))
    it(`gives what parsing and then scrubbing gives: ${name}`, () => {
      const parsed = scrubber.parseEchoFree(text)
      expect(parsed).toEqual(scrubber.echoes(JSON.parse(text)))
      expect(canaryLeaks(JSON.stringify(parsed))).toEqual([])
    })

  it('scrubs a base64 form whose slashes the server wrote escaped', () => {
    // '???' is 'Pz8/' in base64: this secret's base64 form holds slashes.
    const credentials = { secret: 'sk_test_a???b???c', appToken: CANARY_TOKEN }
    const form = Buffer.from(credentials.secret).toString('base64').replace(/=+$/, '')
    expect(form).toContain('/')
    const text = `{"items":[{"note":"${form.replace(/\//g, '\\/')}"}]}`
    const parsed = credentialScrubber(credentials).parseEchoFree(text)
    expect(JSON.stringify(parsed)).not.toContain(form)
    expect(parsed).toEqual({ items: [{ note: '[redacted]' }] })
  })

  it('hands back the parsed page itself when its text holds no echo', () => {
    const text = texts['no credential at all'] ?? ''
    expect(scrubber.parseEchoFree(text)).toEqual(JSON.parse(text))
  })

  it('throws on a malformed text, as JSON.parse does', () => {
    expect(() => scrubber.parseEchoFree('{"items": [')).toThrow(SyntaxError)
  })
})

describe('one scrubber per connection', () => {
  it('reuses the scrubber of the same credentials, and scrubs the new secret once they change', () => {
    const credentials = { secret: 'sk_test_first_secret_1', appToken: CANARY_TOKEN }
    const first = credentialScrubber(credentials)
    expect(credentialScrubber(credentials)).toBe(first)
    credentials.secret = 'sk_test_other_secret_2'
    const text = `{"note":"${credentials.secret}"}`
    expect(credentialScrubber(credentials).parseEchoFree(text)).toEqual({ note: '[redacted]' })
  })
})
