/**
 * Scrubs a connection's own credentials out of what the payment service answered, before any of it
 * leaves main. A server (or a proxy in front of it) may echo the Authorization header into a successful
 * page — in metadata, a description, a field name — and that page would otherwise reach IndexedDB, the
 * ledger, CSV exports, the workbook and backups. Errors get the stricter `redactCredentials`.
 *
 * What counts as the credentials: the whole header (`Bearer <secret>.<appToken>`), the secret, the app
 * token and each of its three parts, each also percent-encoded (either hex case) and base64-encoded.
 * Forms shorter than MIN_FORM characters are not scrubbed: replacing a one- or two-character secret
 * everywhere would corrupt the data, and the header form still catches any echo of the whole header.
 */
import { Buffer } from 'node:buffer'
import { authorizationHeader, type Credentials } from '../vault/credentials'

export const REDACTED = '[redacted]'
const MIN_FORM = 6

export function credentialForms(credentials: Credentials): string[] {
  const raw = [
    authorizationHeader(credentials),
    `${credentials.secret}.${credentials.appToken}`,
    credentials.secret,
    credentials.appToken,
    ...credentials.appToken.split('.'),
  ]
  const forms = new Set<string>()
  for (const text of raw) {
    if (text.length < MIN_FORM) continue
    const encoded = encodeURIComponent(text)
    forms.add(text)
    forms.add(encoded)
    forms.add(encoded.replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase()))
    forms.add(encodeURIComponent(encoded)) // encoded twice, as in a query string inside a URL
    forms.add(Buffer.from(text).toString('base64').replace(/=+$/, ''))
    forms.add(Buffer.from(text).toString('base64url'))
  }
  // Longest first, so the whole header is replaced before its parts would be.
  return [...forms].sort((a, b) => b.length - a.length)
}

function scrubText(text: string, forms: readonly string[]): string {
  let out = text
  for (const form of forms) if (out.includes(form)) out = out.split(form).join(REDACTED)
  return out
}

/** A copy of `value` (parsed JSON) with every credential form replaced by `[redacted]`, keys included. */
export function scrubCredentials(value: unknown, forms: readonly string[]): unknown {
  if (typeof value === 'string') return scrubText(value, forms)
  if (Array.isArray(value)) return value.map((v) => scrubCredentials(v, forms))
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [scrubText(k, forms), scrubCredentials(v, forms)]),
    )
  return value
}
