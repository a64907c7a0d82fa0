/**
 * The list of channel names, and the one function that turns a transport into a DesktopApi.
 * Kept free of zod so the sandboxed preload bundle stays tiny (it imports only this file and types).
 */
import type { Channel, DesktopApi } from './contract'
import { DesktopApiError, type ApiErrorShape, type CallOutcome } from './errors'

/** Every channel of the contract; a unit test checks it equals the contract's keys. */
export const CHANNELS = [
  'app:info',
  'app:openExternal',
  'files:begin',
  'files:append',
  'files:finish',
  'files:cancel',
  'connections:list',
  'connections:create',
  'connections:update',
  'connections:delete',
  'connections:test',
  'vault:status',
  'vault:cancelWaits',
  'api:listPage',
  'api:queueState',
  'api:cancelJob',
  'api:payoutPage',
  'sandbox:startDemo',
  'backup:sign',
  'backup:verify',
  'backup:exportKey',
  'backup:importKey',
  'export:begin',
  'export:appendRows',
  'export:finish',
  'export:cancel',
  'team:get',
  'team:configure',
  'team:forget',
  'team:test',
  'team:pushMarks',
  'team:changeMonth',
  'team:months',
  'team:pullAudit',
  'team:joinMarks',
  'team:grants',
  'team:waitWake',
] as const satisfies readonly Channel[]

// Compile-time: a channel added to the contract but not to CHANNELS fails the typecheck here.
type MissingChannels = Exclude<Channel, (typeof CHANNELS)[number]>
export const channelListIsComplete: [MissingChannels] extends [never] ? true : MissingChannels = true

/** A transport sends one call and returns its envelope (IPC invoke, or an HTTP POST). */
export type Transport = (channel: Channel, args: unknown) => Promise<CallOutcome>

/**
 * Errors thrown across Electron's contextBridge keep only their message, so the preload encodes the
 * error shape into it and `decodeBridgedErrors` (renderer side) turns it back into a DesktopApiError.
 */
export const BRIDGE_ERROR_PREFIX = 'closebook-error:'

export type ErrorStyle = 'class' | 'bridge'

function toThrown(error: DesktopApiError, style: ErrorStyle): Error {
  return style === 'class' ? error : new Error(BRIDGE_ERROR_PREFIX + JSON.stringify(error.toShape()))
}

export function decodeBridgedError(error: unknown): unknown {
  if (!(error instanceof Error)) return error
  const at = error.message.indexOf(BRIDGE_ERROR_PREFIX)
  if (at < 0) return error
  try {
    return DesktopApiError.fromShape(
      JSON.parse(error.message.slice(at + BRIDGE_ERROR_PREFIX.length)) as ApiErrorShape,
    )
  } catch {
    return error
  }
}

/** Wraps the preload's `window.closebook` so that its errors are DesktopApiErrors again. */
export function decodeBridgedErrors(bridged: DesktopApi): DesktopApi {
  const table = bridged as unknown as Record<string, Record<string, (args: unknown) => Promise<unknown>>>
  return createDesktopApi(async (channel, args) => {
    const [domain, action] = channel.split(':') as [string, string]
    const call = table[domain]?.[action]
    if (!call)
      return { ok: false, error: { code: 'unknown_call', message: `The desktop bridge has no ${channel}.` } }
    try {
      return { ok: true, value: await call(args) }
    } catch (error) {
      const decoded = decodeBridgedError(error)
      if (decoded instanceof DesktopApiError) return { ok: false, error: decoded.toShape() }
      throw decoded
    }
  })
}

export function createDesktopApi(transport: Transport, errorStyle: ErrorStyle = 'class'): DesktopApi {
  const api: Record<string, Record<string, (args: unknown) => Promise<unknown>>> = {}
  for (const channel of CHANNELS) {
    const [domain, action] = channel.split(':') as [string, string]
    const calls = (api[domain] ??= {})
    calls[action] = async (args: unknown) => {
      const outcome = await transport(channel, args ?? {})
      if (outcome.ok) return outcome.value
      throw toThrown(DesktopApiError.fromShape(outcome.error), errorStyle)
    }
  }
  return api as unknown as DesktopApi
}
