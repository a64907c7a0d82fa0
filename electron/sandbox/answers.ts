/**
 * How the sandbox answers: JSON bodies with their status counted, the error body of the service, 429s in
 * each shape's manner, and list answers with the request's injected fault applied (drop, 5xx, a bad item,
 * a truncated body).
 */
import { Buffer } from 'node:buffer'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { BAD_ITEM_VARIANTS } from './faults'
import { roll } from './prng'
import type { FieldError } from './query'
import type { SandboxContext } from './server-context'

export const errorBody = (code: string, errors: FieldError[] = []) => ({ status: 'error', code, errors })

export function send(
  ctx: SandboxContext,
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body)
  ctx.stats.byStatus[status] = (ctx.stats.byStatus[status] ?? 0) + 1
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(text)),
    'Cache-Control': 'no-store',
    ...headers,
  })
  res.end(text)
}

/** A 429. Varied shape: never a `Retry-After`, and on some answers no body at all. */
export function tooMany(
  ctx: SandboxContext,
  res: ServerResponse,
  headers: Record<string, string>,
  retryAfter: string,
  key: string,
  n: number,
): void {
  if (ctx.shape === 'seed')
    return send(ctx, res, 429, errorBody('TOO_MANY_REQUESTS'), { ...headers, 'Retry-After': retryAfter })
  if (roll(ctx.seed, '429-body', key, n) < 0.5)
    return send(ctx, res, 429, errorBody('TOO_MANY_REQUESTS'), headers)
  ctx.stats.byStatus[429] = (ctx.stats.byStatus[429] ?? 0) + 1
  ctx.stats.bodiless429++
  res.writeHead(429, { 'Content-Length': '0', 'Cache-Control': 'no-store', ...headers })
  res.end()
}

/** A list answer with the request's faults applied (`items` is the array inside `body`). */
export function finishList(
  ctx: SandboxContext,
  req: IncomingMessage,
  res: ServerResponse,
  headers: Record<string, string>,
  exactKey: string,
  attempt: number,
  items: Record<string, unknown>[],
  body: Record<string, unknown>,
): void {
  const { faults, stats } = ctx
  const fault = faults.enabled ? faults.decide(exactKey, attempt, items.length) : { kind: 'none' as const }
  if (fault.kind === 'drop') {
    stats.dropped++
    req.socket.destroy()
    return
  }
  if (fault.kind === 'fail')
    return send(
      ctx,
      res,
      fault.status,
      errorBody(fault.status === 503 ? 'SERVICE_UNAVAILABLE' : 'INTERNAL_SERVER_ERROR'),
      headers,
    )
  if (fault.kind === 'bad-item') {
    stats.badItems++
    BAD_ITEM_VARIANTS[fault.variant]?.(items[fault.index] as Record<string, unknown>)
  }
  // Items chosen by id are spoiled only in an answer the client can read whole.
  if (fault.kind !== 'truncate') stats.badItems += faults.spoilChosen(items)
  if (fault.kind === 'truncate') {
    stats.truncated++
    const text = JSON.stringify(body)
    const cut = Buffer.from(text).subarray(0, Math.max(1, Math.floor(Buffer.byteLength(text) / 2)))
    stats.byStatus[200] = (stats.byStatus[200] ?? 0) + 1
    res.writeHead(200, {
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': String(cut.length),
      ...headers,
    })
    res.end(cut)
    return
  }
  send(ctx, res, 200, body, headers)
}
