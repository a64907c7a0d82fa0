/**
 * Every way a call to the payment service can fail, as the one error shape, with whether trying again can
 * help. Messages are written for the accountant; nothing the server or the network stack said is passed on
 * verbatim except short codes and field names, and the client scrubs the secret and app token from anything
 * that is passed on, in case a server echoes them (`scrub-credentials.ts`).
 */
import type { z } from 'zod'
import { DesktopApiError, type ApiErrorShape, type FieldIssue } from '../../shared/errors'
import type { RateLimitInfo } from '../scheduler/rate-limiter'
import type { AttemptResult } from '../scheduler/scheduler'

export type Failure = Extract<AttemptResult<never>, { ok: false }>

const TLS_REASONS: Record<string, string> = {
  CERT_HAS_EXPIRED: "the server's certificate has expired",
  CERT_NOT_YET_VALID: "the server's certificate is not valid yet",
  DEPTH_ZERO_SELF_SIGNED_CERT: "the server's certificate is self-signed",
  SELF_SIGNED_CERT_IN_CHAIN: "the server's certificate chain contains a self-signed certificate",
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: "the server's certificate is not signed by a trusted authority",
  UNABLE_TO_GET_ISSUER_CERT: "the server's certificate is not signed by a trusted authority",
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: "the server's certificate is not signed by a trusted authority",
  ERR_TLS_CERT_ALTNAME_INVALID: "the server's certificate is for another host name",
  CERT_REVOKED: "the server's certificate has been revoked",
  EPROTO: 'the server does not speak TLS on this port (is it http rather than https?)',
  ERR_SSL_WRONG_VERSION_NUMBER: 'the server does not speak TLS on this port (is it http rather than https?)',
}

const UNREACHABLE: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host name not found',
  EAI_AGAIN: 'host name lookup failed',
  EHOSTUNREACH: 'no route to host',
  ENETUNREACH: 'network unreachable',
  EADDRNOTAVAIL: 'address not available',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
}

const DROPPED = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED', 'ECONNABORTED'])

/** The `code`s along an error's cause chain (undici nests them: TypeError → cause → AggregateError…). */
export function errorCodes(error: unknown): string[] {
  const codes: string[] = []
  const seen = new Set<unknown>()
  const visit = (e: unknown, depth: number): void => {
    if (typeof e !== 'object' || e === null || depth > 6 || seen.has(e)) return
    seen.add(e)
    const { code, cause, errors } = e as { code?: unknown; cause?: unknown; errors?: unknown }
    if (typeof code === 'string') codes.push(code)
    visit(cause, depth + 1)
    if (Array.isArray(errors)) for (const inner of errors) visit(inner, depth + 1)
  }
  visit(error, 0)
  return codes
}

function isTlsCode(code: string): boolean {
  return code in TLS_REASONS || /^ERR_(SSL|TLS)_|CERT/.test(code)
}

/** A failure before a response arrived: cancelled, timed out, TLS, unreachable, dropped. */
export function transportFailure(
  error: unknown,
  opts: { cancelled: boolean; timedOut: boolean; timeoutMs: number; host: string; limits?: RateLimitInfo },
): Failure {
  const extra = opts.limits ? { limits: opts.limits } : {}
  if (opts.cancelled)
    return {
      ok: false,
      retry: 'never',
      reachedServer: false,
      error: new DesktopApiError('cancelled', 'The request was cancelled.'),
    }
  if (opts.timedOut)
    return {
      ok: false,
      retry: 'backoff',
      ...extra,
      error: new DesktopApiError(
        'timeout',
        `The payment service at ${opts.host} did not answer within ${Math.round(opts.timeoutMs / 1000)} s.`,
        { timeoutMs: opts.timeoutMs },
      ),
    }
  const codes = errorCodes(error)
  const tls = codes.find(isTlsCode)
  if (tls)
    return {
      ok: false,
      retry: 'never',
      reachedServer: false,
      error: new DesktopApiError(
        'tls',
        `TLS error talking to ${opts.host}: ${TLS_REASONS[tls] ?? 'the secure connection could not be set up'} (${tls}).`,
        { reason: tls },
      ),
    }
  const unreachable = codes.find((c) => c in UNREACHABLE)
  if (unreachable)
    return {
      ok: false,
      retry: 'backoff',
      reachedServer: false,
      error: new DesktopApiError(
        'network',
        `Unreachable host: could not connect to ${opts.host} (${UNREACHABLE[unreachable]}).`,
        { reason: unreachable, unreachable: true },
      ),
    }
  const dropped = codes.find((c) => DROPPED.has(c))
  return {
    ok: false,
    retry: 'backoff',
    ...extra,
    error: new DesktopApiError(
      'network',
      `The connection to ${opts.host} was lost before the answer was complete${dropped ? ` (${dropped})` : ''}.`,
      dropped ? { reason: dropped } : undefined,
    ),
  }
}

/** `items[3].amount` from ['items', 3, 'amount']. */
export function formatPath(path: ReadonlyArray<PropertyKey>): string {
  let out = ''
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`
    else out += out === '' ? String(part) : `.${String(part)}`
  }
  return out || '(root)'
}

/** A page or response main refuses (`malformed_response`), with whether the same call can do better. */
function malformed(
  retry: Failure['retry'],
  message: string,
  details: ApiErrorShape['details'],
  limits: RateLimitInfo | undefined,
): Failure {
  return {
    ok: false,
    retry,
    ...(limits ? { limits } : {}),
    error: new DesktopApiError('malformed_response', message, details),
  }
}

/** A response that does not match the seed's shapes: name where, never echo the value. */
export function malformedSchema(error: z.core.$ZodError, limits?: RateLimitInfo): Failure {
  const fields: FieldIssue[] = error.issues.slice(0, 10).map((issue) => ({
    path: formatPath(issue.path),
    message: issue.message.replace(/^Invalid input: /, ''),
  }))
  const list = fields
    .slice(0, 3)
    .map((f) => `${f.path}: ${f.message}`)
    .join('; ')
  const more = error.issues.length > 3 ? ` (and ${error.issues.length - 3} more)` : ''
  return malformed(
    'never',
    `The payment service sent a response that does not match its documented shape: ${list}${more}.`,
    { fields },
    limits,
  )
}

/** Not retried: the same page would be as large again. */
export function pageTooLarge(maxBytes: number, limits?: RateLimitInfo): Failure {
  const maxMb = Math.round(maxBytes / (1024 * 1024))
  return malformed(
    'never',
    `The payment service sent a page larger than ${maxMb} MB; it was refused unread.`,
    { reason: 'page_too_large', params: { maxMb } },
    limits,
  )
}

/** Not retried: the same page would come back just as deep. */
export function nestedTooDeep(maxDepth: number, limits?: RateLimitInfo): Failure {
  return malformed(
    'never',
    `The payment service sent a page nested more than ${maxDepth} levels deep; it was refused unread.`,
    { reason: 'nested_too_deep', params: { maxDepth } },
    limits,
  )
}

/** Not retried: a page with more items than asked for is not the page asked for; none of it is kept. */
export function tooManyItems(received: number, asked: number, limits?: RateLimitInfo): Failure {
  return malformed(
    'never',
    `The payment service sent ${received} items in a page of at most ${asked}; the page was refused.`,
    { reason: 'too_many_items', params: { received, asked } },
    limits,
  )
}

/** Unparseable JSON is usually a response cut short, so it is worth another try. */
export function malformedJson(limits?: RateLimitInfo): Failure {
  return malformed(
    'backoff',
    'The payment service sent a response that is not valid JSON (it may have been cut short).',
    { reason: 'invalid_json' },
    limits,
  )
}

const SAFE_CODE = /^[A-Za-z][A-Za-z0-9_]{0,63}$/

function cleanText(value: unknown, max = 120): string | undefined {
  if (typeof value !== 'string' && typeof value !== 'number') return undefined
  const text = [...String(value)]
    .map((c) => (c.charCodeAt(0) < 32 || c === '\u007f' ? ' ' : c))
    .join('')
    .trim()
  return text ? text.slice(0, max) : undefined
}

/** The service's SDK error body: `{ status, code, errors: [{ field?, reason }] }`; other shapes tolerated. */
export function parseErrorBody(text: string): { code?: string; fields: FieldIssue[] } {
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    return { fields: [] }
  }
  if (typeof body !== 'object' || body === null) return { fields: [] }
  const { code, errors } = body as { code?: unknown; errors?: unknown }
  const fields: FieldIssue[] = []
  if (Array.isArray(errors)) {
    for (const item of errors.slice(0, 20)) {
      if (typeof item !== 'object' || item === null) continue
      const { field, reason, message } = item as { field?: unknown; reason?: unknown; message?: unknown }
      const path = cleanText(field, 64)
      if (path) fields.push({ path, message: cleanText(reason) ?? cleanText(message) ?? 'invalid' })
    }
  }
  return typeof code === 'string' && SAFE_CODE.test(code) ? { code, fields } : { fields }
}

const UNAUTHORIZED_HINT: Record<string, string> = {
  INVALID_APP_TOKEN: 'the app token was refused',
  OUTDATED_APP_TOKEN: 'the app token is outdated',
  EXPIRED_LOGIN_TOKEN: 'the token has expired',
  INVALID_CREDENTIALS: 'the secret or app token is wrong',
  IMPROPER_AUTH: 'the Authorization header was not accepted',
  AUTH_HEADER_MISSING: 'the Authorization header was missing',
}

/**
 * 403 codes of the real service (real-service.md): what the accountant can do about each. The renderer
 * shows its own translated hint by `details.reason`; this text is the English fallback in the message.
 */
const FORBIDDEN_HINT: Record<string, string> = {
  OUTDATED_APP_TOKEN:
    'the app token is outdated: create a new app token in the payment service and enter it again',
  INVALID_PERMISSIONS:
    'the app token may not read this list: a store-scoped token reads only its own stores, so give the ' +
    "connection's store ids, or use a merchant-wide token",
}

/** A response with a status other than 2xx. */
export function statusFailure(status: number, bodyText: string, limits: RateLimitInfo): Failure {
  const body = parseErrorBody(bodyText)
  const codeNote = body.code ? `: ${body.code}` : ''
  const details: NonNullable<ApiErrorShape['details']> = {
    status,
    ...(body.code ? { reason: body.code } : {}),
  }
  const fail = (
    code: ApiErrorShape['code'],
    message: string,
    retry: Failure['retry'] = 'never',
  ): Failure => ({
    ok: false,
    retry,
    limits,
    error: new DesktopApiError(code, message, details),
  })
  // An Authorization header the service cannot use is a credentials problem whatever the status it comes
  // with: trying again cannot help, and a retry storm would only hit the limits.
  if (body.code === 'IMPROPER_AUTH')
    return fail(
      'unauthorized',
      `The payment service refused the credentials (HTTP ${status}: IMPROPER_AUTH): ${UNAUTHORIZED_HINT['IMPROPER_AUTH']}.`,
    )
  if (status === 429) {
    if (limits.retryAfterMs !== undefined) details.retryAfterMs = limits.retryAfterMs
    return fail('rate_limited', 'The payment service asked us to slow down (HTTP 429).', 'rate_limited')
  }
  if (status === 400 || status === 422) {
    if (body.fields.length > 0) details.fields = body.fields
    const list = body.fields.map((f) => `${f.path}: ${f.message}`).join('; ')
    return fail(
      'invalid_argument',
      `The payment service refused the request (HTTP ${status}${codeNote})${list ? `: ${list}` : ''}.`,
    )
  }
  if (status === 401) {
    const hint = (body.code && UNAUTHORIZED_HINT[body.code]) ?? 'check the secret and the app token'
    return fail('unauthorized', `The payment service refused the credentials (HTTP 401${codeNote}): ${hint}.`)
  }
  if (status === 403) {
    const hint = body.code ? FORBIDDEN_HINT[body.code] : undefined
    return fail(
      'forbidden',
      `These credentials may not list this resource (HTTP 403${codeNote})${hint ? `: ${hint}` : ''}.`,
    )
  }
  if (status === 404)
    return fail(
      'not_found',
      `The payment service has no such resource (HTTP 404${codeNote}): check the store id and the base URL.`,
    )
  if (status === 408)
    return fail('timeout', 'The payment service gave up waiting for the request (HTTP 408).', 'backoff')
  if (status >= 500)
    return fail('server_error', `The payment service failed (HTTP ${status}${codeNote}).`, 'backoff')
  if (status >= 300 && status < 400)
    return fail(
      'server_error',
      `The payment service answered with a redirect (HTTP ${status}); Closebook does not follow redirects, ` +
        'so credentials are only ever sent to the configured base URL.',
    )
  return fail('server_error', `The payment service answered HTTP ${status}${codeNote}.`)
}
