/**
 * The host-independent half of every call: validate the argument against the contract, run the handler,
 * check the result, and turn any failure into the one error shape. Both transports (Electron IPC and the
 * web host's HTTP) call `dispatch`; neither runs a handler any other way.
 */
import { desktopApiContract, type Channel } from '../shared/contract'
import {
  DesktopApiError,
  fieldIssuesFromZod,
  invalidArgument,
  reasonFromZod,
  type CallOutcome,
} from '../shared/errors'
import type { CallContext, Handlers } from './handlers/types'

export function isChannel(name: unknown): name is Channel {
  return typeof name === 'string' && Object.prototype.hasOwnProperty.call(desktopApiContract, name)
}

export interface DispatchLog {
  /** Called with a message that never contains arguments (they may hold credentials). */
  error(message: string): void
}

export async function dispatch(
  handlers: Handlers,
  channel: unknown,
  rawArgs: unknown,
  ctx: CallContext,
  log: DispatchLog = { error: () => undefined },
): Promise<CallOutcome> {
  try {
    if (!isChannel(channel)) {
      throw new DesktopApiError('unknown_call', `Unknown call "${String(channel).slice(0, 80)}".`)
    }
    const spec = desktopApiContract[channel]
    const parsed = spec.args.safeParse(rawArgs ?? {})
    if (!parsed.success)
      throw invalidArgument(
        `arguments for ${channel}`,
        fieldIssuesFromZod(parsed.error),
        reasonFromZod(parsed.error),
      )
    const handler = handlers[channel] as (args: unknown, ctx: CallContext) => Promise<unknown>
    const value = await handler(parsed.data, ctx)
    const checked = spec.result.safeParse(value)
    if (!checked.success) {
      // A bug on our side: say which call, never echo the value (it could hold anything).
      log.error(`result of ${channel} does not match the contract: ${checked.error.issues.length} issue(s)`)
      throw new DesktopApiError('internal', `The app produced an invalid result for ${channel}.`)
    }
    return { ok: true, value: checked.data }
  } catch (error) {
    if (error instanceof DesktopApiError) return { ok: false, error: error.toShape() }
    if (ctx.signal.aborted)
      return { ok: false, error: { code: 'cancelled', message: 'The call was cancelled.' } }
    // Unknown errors may carry anything in their message (a URL with a token, a header): keep only the kind.
    const kind = error instanceof Error ? error.name : typeof error
    log.error(`unexpected ${kind} in ${typeof channel === 'string' ? channel.slice(0, 80) : 'call'}`)
    return { ok: false, error: { code: 'internal', message: 'An unexpected error occurred in the app.' } }
  }
}
