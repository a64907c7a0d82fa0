// The team settings' private CA: PEM certificate text is accepted (one or more blocks), anything else is
// refused with an error that names the problem and never repeats the text given.
import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { teamConfigSchema } from '../../../../electron/shared/contract/team'
import { pemCertificateProblem } from '../../../../electron/shared/pem'

const base = { host: 'db.firm.example', port: 5432, database: 'closebook', user: 'ana' }

/** A block shaped like a certificate: base64 in 64-character lines between the PEM armour. */
function block(bytes = 600): string {
  const body = randomBytes(bytes)
    .toString('base64')
    .replace(/(.{64})/g, '$1\n')
    .trim()
  return `-----BEGIN CERTIFICATE-----\n${body}\n-----END CERTIFICATE-----`
}

function issues(caPem: string): string[] {
  const parsed = teamConfigSchema.safeParse({ ...base, caPem })
  return parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`)
}

describe('team CA certificate (PEM)', () => {
  it('is optional, and a chain of certificate blocks is kept as given', () => {
    expect(teamConfigSchema.parse(base)).toEqual(base)
    const chain = `${block()}\n${block(900)}`
    expect(teamConfigSchema.parse({ ...base, caPem: `\n${chain}\r\n` }).caPem).toBe(`${chain}\n`)
    expect(pemCertificateProblem(chain.replace(/\n/g, '\r\n'))).toBeNull()
  })

  it('refuses what is not a certificate, naming why, without repeating the text', () => {
    const key = `-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----`
    const cases: [string, string][] = [
      ['my-secret-looking-words', 'caPem: expected PEM text starting with -----BEGIN CERTIFICATE-----'],
      [key, 'caPem: this is a private key; give the CA certificate (BEGIN CERTIFICATE) instead'],
      [
        `${block()}\ntrailing words`,
        'caPem: expected only CERTIFICATE blocks (BEGIN/END CERTIFICATE), found other text',
      ],
      [
        '-----BEGIN CERTIFICATE-----\nQUJD\n-----END CERTIFICATE-----',
        'caPem: the CERTIFICATE block holds no valid base64 certificate',
      ],
      [
        '-----BEGIN CERTIFICATE-----\nnot base64 at all!\n-----END CERTIFICATE-----',
        'caPem: expected only CERTIFICATE blocks (BEGIN/END CERTIFICATE), found other text',
      ],
      [
        `${block()}\n${key}`,
        'caPem: this is a private key; give the CA certificate (BEGIN CERTIFICATE) instead',
      ],
    ]
    for (const [text, expected] of cases) {
      const found = issues(text)
      expect(found, text.slice(0, 40)).toEqual([expected])
      expect(JSON.stringify(teamConfigSchema.safeParse({ ...base, caPem: text }).error)).not.toContain(
        'my-secret-looking-words',
      )
    }
    expect(issues(block(60_000))).toEqual(['caPem: a CA certificate file is at most 64 KiB'])
  })
})
