/** Reads the seed's §8.2 headers and `Retry-After` from a response; anything missing or odd is left out. */
import type { RateLimitInfo } from '../scheduler/rate-limiter'

/** A server asking for more than this is treated as asking for this, so a bad header cannot stall a sync. */
export const MAX_RETRY_AFTER_MS = 10 * 60_000

function count(headers: Headers, name: string): number | undefined {
  const raw = headers.get(name)
  if (raw === null || !/^\s*\d{1,9}(\.\d+)?\s*$/.test(raw)) return undefined
  return Number(raw)
}

/** `Retry-After` is seconds (we also accept fractions, which a scaled-down sandbox may send) or an HTTP date. */
export function parseRetryAfter(raw: string | null, now: number): number | undefined {
  if (raw === null) return undefined
  const text = raw.trim()
  let ms: number
  if (/^\d+(\.\d+)?$/.test(text)) ms = Number(text) * 1000
  else {
    const at = Date.parse(text)
    if (Number.isNaN(at)) return undefined
    ms = at - now
  }
  return Math.min(MAX_RETRY_AFTER_MS, Math.max(0, Math.ceil(ms)))
}

export function parseRateLimitHeaders(headers: Headers, now: number): RateLimitInfo {
  const info: RateLimitInfo = {}
  for (const [kind, suffix] of [
    ['route', 'Route'],
    ['exact', 'Exact'],
  ] as const) {
    const perMinute = count(headers, `X-Requests-Per-Minute-${suffix}`)
    const remaining = count(headers, `X-Remaining-Requests-${suffix}`)
    if (perMinute !== undefined || remaining !== undefined) {
      info[kind] = {
        ...(perMinute !== undefined && perMinute > 0 ? { perMinute } : {}),
        ...(remaining !== undefined ? { remaining: Math.floor(remaining) } : {}),
      }
    }
  }
  const retryAfterMs = parseRetryAfter(headers.get('Retry-After'), now)
  if (retryAfterMs !== undefined) info.retryAfterMs = retryAfterMs
  return info
}
