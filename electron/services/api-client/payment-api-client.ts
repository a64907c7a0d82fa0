/**
 * One HTTP try of a list call (seed §4): GET under the connection's base URL with
 * `Authorization: Bearer <secret>.<appToken>`, a timeout (on the injected clock) combined with the caller's
 * AbortSignal, and the response validated with zod: the envelope whole, each item on its own (page-validation.ts).
 * Retrying and rate limits are the scheduler's job; this reports what happened and whether a retry helps.
 */
import type { z } from 'zod'
import type { Clock } from '../scheduler/clock'
import type { AttemptResult } from '../scheduler/scheduler'
import { authorizationHeader, type Credentials } from '../vault/credentials'
import {
  malformedJson,
  nestedTooDeep,
  pageTooLarge,
  malformedSchema,
  tooManyItems,
  statusFailure,
  transportFailure,
} from './failures'
import type { BuiltRequest } from './list-request'
import { validatePayoutPage, type BuiltPayoutRequest, type ValidatedPayoutPage } from './payout-request'
import { validatePage, type ValidatedPage } from './page-validation'
import { parseRateLimitHeaders } from './rate-limit-headers'
import { jsonNestsDeeperThan, MAX_JSON_DEPTH } from '../../shared/json-depth'
import { credentialScrubber } from './scrub-credentials'
import { BodyGate, LARGE_BODY } from './body-gate'

/** A page whose envelope was valid: its good items, and the bad ones quarantined (page-validation.ts). */
export type ListEnvelope = ValidatedPage

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>

export interface PaymentApiClientOptions {
  clock: Clock
  fetch?: FetchLike
  /** Per try, including reading the body. */
  timeoutMs?: number
}

/** Error bodies are read only this far: they are for a code and a field list, not for content. */
const MAX_ERROR_BODY = 64 * 1024
/**
 * A page of 100 items is ~200 KB, and one whose every text field is at the stored limit (stored-text.ts)
 * a few MB; a body beyond this is refused as it streams in, before it can exhaust main's memory.
 */
export const MAX_PAGE_BODY = 16 * 1024 * 1024

/**
 * The body as it streams in, with a running count: reading stops (and the rest is cancelled) once `max`
 * bytes are in. `onLarge` runs once when the count passes `LARGE_BODY`, and reading waits for it.
 */
async function readBytes(
  response: Response,
  max: number,
  onLarge?: () => Promise<void>,
): Promise<{ bytes: Buffer; size: number }> {
  if (!response.body) return { bytes: Buffer.alloc(0), size: 0 }
  const chunks: Uint8Array[] = []
  let size = 0
  let large = false
  // Leaving the loop early cancels the rest of the body.
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    chunks.push(chunk)
    size += chunk.byteLength
    if (size >= max) break
    if (!large && onLarge && size > LARGE_BODY) {
      large = true
      await onLarge()
    }
  }
  return { bytes: Buffer.concat(chunks).subarray(0, max), size }
}

async function readCapped(response: Response, max: number): Promise<string> {
  return new TextDecoder().decode((await readBytes(response, max)).bytes)
}

/**
 * An error, or a page's quarantined payloads (they go to the renderer and its cache), with any credential
 * the server echoed replaced.
 */
function scrubbed<P extends { quarantined: Q[] }, Q>(
  result: AttemptResult<P>,
  credentials: Credentials,
): AttemptResult<P> {
  const scrub = credentialScrubber(credentials)
  if (!result.ok) return { ...result, error: scrub.error(result.error) }
  if (result.value.quarantined.length === 0) return result
  return { ...result, value: { ...result.value, quarantined: scrub.pieces(result.value.quarantined) } }
}

export class PaymentApiClient {
  private readonly clock: Clock
  private readonly fetchImpl: FetchLike
  readonly timeoutMs: number
  /** Large answers read and parsed at once, across every call of this client (body-gate.ts). */
  readonly bodies = new BodyGate()

  constructor(options: PaymentApiClientOptions) {
    this.clock = options.clock
    this.fetchImpl = options.fetch ?? ((input, init) => fetch(input, init))
    this.timeoutMs = options.timeoutMs ?? 30_000
  }

  async list(
    request: BuiltRequest,
    credentials: Credentials,
    signal: AbortSignal,
    timeoutMs = this.timeoutMs,
  ): Promise<AttemptResult<ListEnvelope>> {
    const result = await this.send(request, credentials, signal, timeoutMs, (json) => {
      const validated = validatePage(request.resource, json, {
        request: request.display,
        ...(request.window ? { window: request.window } : {}),
      })
      return validated.ok ? { ok: true, value: validated.page } : validated
    })
    return scrubbed(result, credentials)
  }

  /** One payout page or item, validated like a list page; quarantined payloads scrubbed as there. */
  async payout(
    request: BuiltPayoutRequest,
    credentials: Credentials,
    signal: AbortSignal,
    timeoutMs = this.timeoutMs,
  ): Promise<AttemptResult<ValidatedPayoutPage>> {
    const result = await this.send(request, credentials, signal, timeoutMs, (json) =>
      validatePayoutPage(request, json),
    )
    return scrubbed(result, credentials)
  }

  private async send<T>(
    request: { url: string; jsonContentType: boolean; limit: number },
    credentials: Credentials,
    signal: AbortSignal,
    timeoutMs: number,
    validate: (json: unknown) => { ok: true; value: T } | { ok: false; error: z.core.$ZodError },
  ): Promise<AttemptResult<T>> {
    const host = new URL(request.url).host
    const controller = new AbortController()
    let timedOut = false
    const onAbort = (): void => controller.abort()
    if (signal.aborted) controller.abort()
    else signal.addEventListener('abort', onAbort, { once: true })
    const timer = new AbortController()
    let releaseSlot: (() => void) | undefined
    this.clock.sleep(timeoutMs, timer.signal).then(
      () => {
        timedOut = true
        controller.abort()
      },
      () => undefined,
    )
    const failed = (error: unknown, limits?: ReturnType<typeof parseRateLimitHeaders>) =>
      transportFailure(error, {
        cancelled: signal.aborted,
        timedOut,
        timeoutMs,
        host,
        ...(limits ? { limits } : {}),
      })
    try {
      const headers: Record<string, string> = {
        Authorization: authorizationHeader(credentials),
        Accept: 'application/json',
      }
      if (request.jsonContentType) headers['Content-type'] = 'application/json'
      let response: Response
      try {
        if (controller.signal.aborted) throw new Error('aborted before sending')
        response = await this.fetchImpl(request.url, {
          method: 'GET',
          headers,
          // A redirect could carry the Authorization header elsewhere: never follow one.
          redirect: 'manual',
          signal: controller.signal,
        })
      } catch (error) {
        return failed(error)
      }
      const limits = parseRateLimitHeaders(response.headers, this.clock.now())
      if (response.status < 200 || response.status > 299) {
        let body = ''
        try {
          body = await readCapped(response, MAX_ERROR_BODY)
        } catch (error) {
          if (signal.aborted || timedOut) return failed(error, limits)
        }
        return statusFailure(response.status, body, limits)
      }
      let text: string
      try {
        const page = await readBytes(response, MAX_PAGE_BODY + 1, async () => {
          releaseSlot = await this.bodies.acquire(controller.signal)
        })
        if (page.size > MAX_PAGE_BODY) return pageTooLarge(MAX_PAGE_BODY, limits)
        text = new TextDecoder().decode(page.bytes)
      } catch (error) {
        return failed(error, limits)
      }
      if (jsonNestsDeeperThan(text)) return nestedTooDeep(MAX_JSON_DEPTH, limits)
      let json: unknown
      try {
        // A page that echoes our own credentials must not carry them on to the cache and exports.
        json = credentialScrubber(credentials).parseEchoFree(text)
      } catch {
        return malformedJson(limits)
      }
      const items = (json as { items?: unknown } | null)?.items
      if (Array.isArray(items) && items.length > request.limit)
        return tooManyItems(items.length, request.limit, limits)
      const validated = validate(json)
      return validated.ok
        ? { ok: true, value: validated.value, limits }
        : malformedSchema(validated.error, limits)
    } finally {
      releaseSlot?.()
      timer.abort()
      signal.removeEventListener('abort', onAbort)
    }
  }
}
