/**
 * A GET on the API: rate limits first (every answer carries their headers), injected latency, then
 * authentication, the app token's faults and 429 storms, then the payout routes or the four lists.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { errorBody, finishList, send, tooMany } from './answers'
import { sameText } from './auth'
import { listPage, matchRoute } from './list-pages'
import { answerPayout, matchPayoutRoute } from './payout-routes'
import { retryAfterValue } from './rate-limits'
import type { SandboxContext } from './server-context'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

export async function handleList(
  ctx: SandboxContext,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
): Promise<void> {
  const { limits, faults, data } = ctx
  const route = matchRoute(url.pathname)
  const payoutRoute = route ? undefined : matchPayoutRoute(url.pathname)
  const auth = req.headers.authorization
  const authorized = typeof auth === 'string' && sameText(auth, ctx.expectedAuth)
  const namespace = authorized ? 'merchant' : `anonymous:${req.socket.remoteAddress ?? ''}`
  const routeKey = `GET ${route?.template ?? payoutRoute?.template ?? url.pathname}`
  const exactKey = `GET ${url.pathname}${url.search}`
  const verdict = !ctx.rateLimited
    ? { allowed: true, headers: limits.peek(namespace, routeKey, exactKey) }
    : limits.take(namespace, routeKey, exactKey)
  const headers: Record<string, string> = { ...verdict.headers }

  const attempt = faults.attempt(exactKey)
  const delay = faults.delayMs(exactKey, attempt)
  if (delay > 0) await new Promise((r) => setTimeout(r, delay))

  if (!verdict.allowed)
    return tooMany(
      ctx,
      res,
      headers,
      retryAfterValue(verdict.retryAfterSeconds ?? 1, ctx.scale !== 1),
      exactKey,
      attempt,
    )
  if (auth === undefined) return send(ctx, res, 401, errorBody('AUTH_HEADER_MISSING'), headers)
  if (!authorized) {
    const wellFormed =
      typeof auth === 'string' &&
      /^Bearer [^.\s]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(auth)
    if (!wellFormed) return send(ctx, res, 401, errorBody('IMPROPER_AUTH'), headers)
    // Varied: the right secret with another app token names the token (reference "Errors and limits").
    const rightSecret = typeof auth === 'string' && auth.startsWith(`Bearer ${ctx.secret}.`)
    const code = ctx.shape === 'varied' && rightSecret ? 'INVALID_APP_TOKEN' : 'INVALID_CREDENTIALS'
    return send(ctx, res, 401, errorBody(code), headers)
  }
  if (ctx.token.state === 'outdated') return send(ctx, res, 403, errorBody('OUTDATED_APP_TOKEN'), headers)
  const stormLeft = faults.stormLeftMs(ctx.now())
  if (stormLeft > 0) return tooMany(ctx, res, headers, retryAfterValue(stormLeft / 1000), exactKey, attempt)
  if (payoutRoute) {
    // Payouts are the merchant's: a store-scoped token may not read them (README.md, "Payouts").
    if (ctx.token.scope === 'store') return send(ctx, res, 403, errorBody('INVALID_PERMISSIONS'), headers)
    ctx.catchUp()
    const answer = answerPayout(payoutRoute, url.searchParams, ctx.payoutContext())
    if (answer.status === 404) return send(ctx, res, 404, errorBody('NOT_FOUND'), headers)
    if (answer.status === 400)
      return send(ctx, res, 400, errorBody('VALIDATION_ERROR', answer.errors), headers)
    if (!answer.list) return send(ctx, res, 200, answer.body, headers)
    return finishList(ctx, req, res, headers, exactKey, attempt, answer.list.items, answer.body)
  }
  if (!route) return send(ctx, res, 404, errorBody('NOT_FOUND'), headers)
  if (ctx.token.scope === 'store' && route.storeId === undefined)
    return send(ctx, res, 403, errorBody('INVALID_PERMISSIONS'), headers)
  ctx.catchUp()
  if (route.storeId !== undefined) {
    if (!UUID.test(route.storeId))
      return send(
        ctx,
        res,
        400,
        errorBody('VALIDATION_ERROR', [{ field: 'storeId', reason: 'must be a UUID' }]),
        headers,
      )
    if (!data.hasStore(route.storeId.toLowerCase()))
      return send(ctx, res, 404, errorBody('NOT_FOUND'), headers)
  }
  const page = listPage(ctx, route, url.searchParams, route.storeId?.toLowerCase())
  if (!page.ok) return send(ctx, res, 400, errorBody('VALIDATION_ERROR', page.errors), headers)
  finishList(ctx, req, res, headers, exactKey, attempt, page.items, page.body)
}
