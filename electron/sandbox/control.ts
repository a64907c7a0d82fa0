/**
 * The control endpoint (`/__control/*`): loopback callers with the control token change the data while the
 * sandbox runs (new charges and refunds, status changes, late changes, the app token's faults) or read
 * its state. Bad input answers 400 with the field at fault.
 */
import { Buffer } from 'node:buffer'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { errorBody, send } from './answers'
import { sameText } from './auth'
import { SandboxInputError } from './dataset'
import type { ChargeStatus, RefundStatus } from './model'
import type { SandboxContext } from './server-context'

function isLoopback(address: string | undefined): boolean {
  return address === '127.0.0.1' || address === '::1' || address === '::ffff:127.0.0.1'
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length
    if (size > 65_536) throw new SandboxInputError('body', 'must be at most 64 KiB')
    chunks.push(chunk)
  }
  if (size === 0) return {}
  let value: unknown
  try {
    value = JSON.parse(Buffer.concat(chunks).toString('utf8'))
  } catch {
    throw new SandboxInputError('body', 'must be a JSON object')
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new SandboxInputError('body', 'must be a JSON object')
  return value as Record<string, unknown>
}

function optionalString(body: Record<string, unknown>, field: string): string | undefined {
  const value = body[field]
  if (value === undefined) return undefined
  if (typeof value !== 'string') throw new SandboxInputError(field, 'must be a string')
  return value
}

type Change = (ctx: SandboxContext, body: Record<string, unknown>, atUs: number) => unknown

/** The control endpoint's changes by path: each checks its body (SandboxInputError) and says what it did. */
const CHANGES: Readonly<Record<string, Change>> = {
  '/__control/charges': ({ data }, body, at) => {
    const count = body['count'] ?? 1
    if (typeof count !== 'number' || !Number.isInteger(count) || count < 1 || count > 10_000)
      throw new SandboxInputError('count', 'must be a whole number from 1 to 10000')
    const storeId = optionalString(body, 'storeId')
    if (storeId !== undefined && !data.hasStore(storeId))
      throw new SandboxInputError('storeId', 'no such store')
    const status = optionalString(body, 'status') as ChargeStatus | undefined
    const added = []
    for (let i = 0; i < count; i++) {
      const c = data.addCharge(at, { ...(storeId ? { storeId } : {}), ...(status ? { status } : {}) })
      added.push({ id: c.id, storeId: c.storeId, status: c.status })
    }
    return { charges: added }
  },
  '/__control/refunds': ({ data }, body, at) => {
    const chargeId = optionalString(body, 'chargeId')
    if (!chargeId) throw new SandboxInputError('chargeId', 'required')
    const amount = body['amount']
    if (amount !== undefined && typeof amount !== 'number')
      throw new SandboxInputError('amount', 'must be a number')
    const status = optionalString(body, 'status') as RefundStatus | undefined
    const refund = data.addRefund(chargeId, at, {
      ...(amount !== undefined ? { amount } : {}),
      ...(status ? { status } : {}),
    })
    return {
      refund: { id: refund.id, chargeId: refund.chargeId, amount: refund.amount, status: refund.status },
    }
  },
  '/__control/status': ({ data }, body) => {
    const id = optionalString(body, 'id')
    const status = optionalString(body, 'status')
    if (!id) throw new SandboxInputError('id', 'required')
    if (!status) throw new SandboxInputError('status', 'required')
    data.setStatus(id, status)
    return { ok: true }
  },
  '/__control/late-changes': ({ data }, body, at) => {
    const count = body['count'] ?? 1
    if (typeof count !== 'number' || !Number.isInteger(count) || count < 1 || count > 100_000)
      throw new SandboxInputError('count', 'must be a whole number from 1 to 100000')
    const applied = data.applyLateChanges(count, at)
    return { applied, left: data.lateChanges.length }
  },
  '/__control/app-token': ({ token }, body) => {
    const state = optionalString(body, 'state')
    const scope = optionalString(body, 'scope')
    if (state !== undefined && state !== 'valid' && state !== 'outdated')
      throw new SandboxInputError('state', 'must be valid or outdated')
    if (scope !== undefined && scope !== 'merchant' && scope !== 'store')
      throw new SandboxInputError('scope', 'must be merchant or store')
    if (state) token.state = state
    if (scope) token.scope = scope
    return { state: token.state, scope: token.scope }
  },
}

/** The control endpoint: loopback callers with the control token only. */
export async function handleControl(
  ctx: SandboxContext,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
): Promise<void> {
  const { data, shape, controlToken } = ctx
  const token = req.headers['x-control-token']
  if (
    !controlToken ||
    !isLoopback(req.socket.remoteAddress) ||
    typeof token !== 'string' ||
    !sameText(token, controlToken)
  )
    return send(ctx, res, 403, errorBody('FORBIDDEN'))
  if (url.pathname === '/__control/state' && req.method === 'GET') {
    ctx.catchUp()
    return send(ctx, res, 200, {
      charges: data.charges.length,
      history: data.history.length,
      version: data.version,
      shape,
      lateChangesApplied: data.appliedLateChanges.length,
      lateChangesLeft: data.lateChanges.length,
    })
  }
  if (req.method !== 'POST') return send(ctx, res, 405, errorBody('METHOD_NOT_ALLOWED'))
  try {
    const body = await readJson(req)
    const change = CHANGES[url.pathname]
    if (!change) return send(ctx, res, 404, errorBody('NOT_FOUND'))
    return send(ctx, res, 200, change(ctx, body, ctx.now() * 1000))
  } catch (error) {
    if (error instanceof SandboxInputError)
      return send(
        ctx,
        res,
        400,
        errorBody('VALIDATION_ERROR', [
          { field: error.field, reason: error.message.replace(/^[^:]+: /, '') },
        ]),
      )
    throw error
  }
}
