/**
 * The one owner of scrubbing a connection's own credentials out of what the payment service answered,
 * before any of it leaves main. A server (or a proxy in front of it) may echo the Authorization header
 * into a successful page — in metadata, a description, a field name — into a quarantined item or into an
 * error body, and that would otherwise reach IndexedDB, the ledger, CSV exports, the workbook and backups.
 *
 * Two strengths, for two kinds of text:
 * - `echoes` (every page): each credential form is replaced by `[redacted]` where it stands, keys included.
 *   The forms: the whole header (`Bearer <secret>.<appToken>`), the secret, the app token and each of its
 *   three parts, each also percent-encoded (either hex case, or twice) and base64-encoded. Forms shorter
 *   than MIN_FORM characters are not scrubbed: replacing a one- or two-character secret everywhere would
 *   corrupt the data, and the header form still catches any echo of the whole header.
 * - `pieces` (quarantined payloads and errors, after `echoes` for pages): a string holding the secret, the
 *   app token or any PIECE characters in a row of either is replaced whole, as text cut short elsewhere (a
 *   field list, a message) may hold only part of a credential.
 */
import { Buffer } from 'node:buffer'
import { DesktopApiError, type ApiErrorShape } from '../../shared/errors'
import { authorizationHeader, type Credentials } from '../vault/credentials'

export const REDACTED = '[redacted]'
const MIN_FORM = 6
/** Any 8 characters in a row taken from a credential count as a piece of it. */
const PIECE = 8

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

function replaceForms(text: string, forms: readonly string[]): string {
  let out = text
  for (const form of forms) if (out.includes(form)) out = out.split(form).join(REDACTED)
  return out
}

function scrubEchoes(value: unknown, forms: readonly string[]): unknown {
  if (typeof value === 'string') return replaceForms(value, forms)
  if (Array.isArray(value)) return value.map((v) => scrubEchoes(v, forms))
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [replaceForms(k, forms), scrubEchoes(v, forms)]),
    )
  return value
}

function piecesOf(secrets: readonly string[]): Set<string> {
  const set = new Set<string>()
  for (const s of secrets) for (let i = 0; i + PIECE <= s.length; i++) set.add(s.slice(i, i + PIECE))
  return set
}

function scrubPieces(value: unknown, pieces: Set<string>, whole: readonly string[]): unknown {
  if (typeof value === 'string') {
    for (let i = 0; i + PIECE <= value.length; i++) if (pieces.has(value.slice(i, i + PIECE))) return REDACTED
    return whole.some((w) => w.length > 0 && value.includes(w)) ? REDACTED : value
  }
  if (Array.isArray(value)) return value.map((v) => scrubPieces(v, pieces, whole))
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, scrubPieces(v, pieces, whole)]))
  return value
}

export interface CredentialScrubber {
  /** A copy of `value` (parsed JSON) with every credential form replaced by `[redacted]`, keys included. */
  echoes(value: unknown): unknown
  /** `value` with every string that holds the secret or app token, or a piece of either, replaced. */
  pieces<T>(value: T): T
  /** Last line of defence: no error leaves the client with the secret or app token, or a piece of either,
   * in it. Our own messages never contain them; this is for text that came from the server. */
  error(error: DesktopApiError): DesktopApiError
}

/** The scrubber of one connection's credentials; forms and pieces are worked out on first use. */
export function credentialScrubber(credentials: Credentials): CredentialScrubber {
  let forms: string[] | undefined
  let pieces: Set<string> | undefined
  const whole = [credentials.secret, credentials.appToken]
  const strict = <T>(value: T): T => scrubPieces(value, (pieces ??= piecesOf(whole)), whole) as T
  return {
    echoes: (value) => scrubEchoes(value, (forms ??= credentialForms(credentials))),
    pieces: strict,
    error: (error) => {
      const shape: ApiErrorShape = strict(error.toShape())
      if (JSON.stringify(shape) === JSON.stringify(error.toShape())) return error
      if (shape.message === REDACTED)
        shape.message = `The payment service answered with an error (${shape.code}); its text was withheld because it contained credentials.`
      return DesktopApiError.fromShape(shape)
    },
  }
}
