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
 *
 * Both also match a credential written in another case or with anything between its characters
 * (`s k _ C A N A R Y`, `SK-CANARY…`, full-width letters, percent-escapes): texts and credentials are
 * compared by their skeletons (skeleton.ts), the letters and digits in lower case.
 */
import { Buffer } from 'node:buffer'
import { DesktopApiError, type ApiErrorShape } from '../../shared/errors'
import { authorizationHeader, type Credentials } from '../vault/credentials'
import { redactSkeletonMatches, skeletonOf } from './skeleton'

export const REDACTED = '[redacted]'
const MIN_FORM = 6
/** Any 8 characters in a row taken from a credential count as a piece of it. */
const PIECE = 8
/** A credential's skeleton shorter than this is not searched for in other case or spacing: too likely to
 * stand in ordinary text. */
const MIN_SKELETON = 10

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

/** The skeletons of the secret, the app token and each part of the token, long ones only, longest first. */
export function credentialSkeletons(credentials: Credentials): string[] {
  const raw = [credentials.secret, credentials.appToken, ...credentials.appToken.split('.')]
  const skeletons = new Set(raw.map(skeletonOf).filter((s) => s.length >= MIN_SKELETON))
  return [...skeletons].sort((a, b) => b.length - a.length)
}

interface EchoPatterns {
  forms: readonly string[]
  skeletons: readonly string[]
}

function replaceForms(text: string, patterns: EchoPatterns): string {
  let out = text
  for (const form of patterns.forms) if (out.includes(form)) out = out.split(form).join(REDACTED)
  return redactSkeletonMatches(out, patterns.skeletons, REDACTED)
}

function scrubEchoes(value: unknown, patterns: EchoPatterns): unknown {
  if (typeof value === 'string') return replaceForms(value, patterns)
  if (Array.isArray(value)) return value.map((v) => scrubEchoes(v, patterns))
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [replaceForms(k, patterns), scrubEchoes(v, patterns)]),
    )
  return value
}

/**
 * Whether a page's JSON text may hold an echo that `scrubEchoes` would replace; false only when it holds
 * none. A text without a backslash writes each of its strings (keys included) as the characters
 * themselves, so a form inside a string is inside the text, and a string's skeleton is a stretch of the
 * text's (a quote is neither a letter, a digit nor a hex digit, so no percent-escape spans a string's
 * edge). Any escape (`\u0073`, `\/`) could hide a form or add letters, so such a text may hold one.
 */
function textMayEcho(text: string, patterns: EchoPatterns): boolean {
  if (text.includes('\\')) return true
  for (const form of patterns.forms) if (text.includes(form)) return true
  if (patterns.skeletons.length === 0) return false
  const skeleton = skeletonOf(text)
  return patterns.skeletons.some((s) => skeleton.includes(s))
}

interface PiecePatterns {
  /** Every PIECE characters in a row of a credential, as written and as skeleton. */
  pieces: Set<string>
  whole: readonly string[]
  /** Skeletons too short to hold a piece: searched for whole. */
  shortSkeletons: readonly string[]
}

function piecesOf(secrets: readonly string[]): PiecePatterns {
  const pieces = new Set<string>()
  const shortSkeletons: string[] = []
  for (const s of secrets) {
    for (let i = 0; i + PIECE <= s.length; i++) pieces.add(s.slice(i, i + PIECE))
    const skeleton = skeletonOf(s)
    if (skeleton.length < PIECE) {
      if (skeleton.length > 0) shortSkeletons.push(skeleton)
    } else for (let i = 0; i + PIECE <= skeleton.length; i++) pieces.add(skeleton.slice(i, i + PIECE))
  }
  return { pieces, whole: secrets.filter((w) => w.length > 0), shortSkeletons }
}

function holdsPiece(value: string, patterns: PiecePatterns): boolean {
  const { pieces, whole, shortSkeletons } = patterns
  for (let i = 0; i + PIECE <= value.length; i++) if (pieces.has(value.slice(i, i + PIECE))) return true
  if (whole.some((w) => value.includes(w))) return true
  const skeleton = skeletonOf(value)
  for (let i = 0; i + PIECE <= skeleton.length; i++) if (pieces.has(skeleton.slice(i, i + PIECE))) return true
  return shortSkeletons.some((s) => skeleton.includes(s))
}

function scrubPieces(value: unknown, patterns: PiecePatterns): unknown {
  if (typeof value === 'string') return holdsPiece(value, patterns) ? REDACTED : value
  if (Array.isArray(value)) return value.map((v) => scrubPieces(v, patterns))
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, scrubPieces(v, patterns)]))
  return value
}

export interface CredentialScrubber {
  /** A copy of `value` (parsed JSON) with every credential form replaced by `[redacted]`, keys included. */
  echoes(value: unknown): unknown
  /**
   * `JSON.parse(text)` with every credential form replaced as `echoes` does. A text that cannot hold an
   * echo is parsed only; a malformed text throws as `JSON.parse` does.
   */
  parseEchoFree(text: string): unknown
  /** `value` with every string that holds the secret or app token, or a piece of either, replaced. */
  pieces<T>(value: T): T
  /** Last line of defence: no error leaves the client with the secret or app token, or a piece of either,
   * in it. Our own messages never contain them; this is for text that came from the server. */
  error(error: DesktopApiError): DesktopApiError
}

/**
 * Scrubbers by credentials object: the connections service keeps one object per connection while its
 * credentials stay the same, so each page reuses the forms and skeletons worked out for the first. An
 * object whose secret or app token is no longer what its scrubber was made for gets a new one.
 */
const scrubbers = new WeakMap<
  Credentials,
  { secret: string; appToken: string; scrubber: CredentialScrubber }
>()

/** The scrubber of one connection's credentials; forms and pieces are worked out on first use. */
export function credentialScrubber(credentials: Credentials): CredentialScrubber {
  const known = scrubbers.get(credentials)
  if (known && known.secret === credentials.secret && known.appToken === credentials.appToken)
    return known.scrubber
  const { secret, appToken } = credentials
  const scrubber = newScrubber({ secret, appToken })
  scrubbers.set(credentials, { secret, appToken, scrubber })
  return scrubber
}

function newScrubber(credentials: Credentials): CredentialScrubber {
  let echoes: EchoPatterns | undefined
  let pieces: PiecePatterns | undefined
  const strict = <T>(value: T): T =>
    scrubPieces(value, (pieces ??= piecesOf([credentials.secret, credentials.appToken]))) as T
  const echoPatterns = (): EchoPatterns =>
    (echoes ??= { forms: credentialForms(credentials), skeletons: credentialSkeletons(credentials) })
  return {
    echoes: (value) => scrubEchoes(value, echoPatterns()),
    parseEchoFree: (text) => {
      const value: unknown = JSON.parse(text)
      return textMayEcho(text, echoPatterns()) ? scrubEchoes(value, echoPatterns()) : value
    },
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
