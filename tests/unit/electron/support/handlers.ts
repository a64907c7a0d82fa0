import { CHANNELS } from '../../../../electron/shared/channels'
import { DesktopApiError } from '../../../../electron/shared/errors'
import type { Handlers } from '../../../../electron/services/handlers/types'

/** Handlers for tests: the given ones, and for every other channel one that fails loudly if called. */
export function handlersWith(given: Partial<Handlers>): Handlers {
  const all: Record<string, unknown> = {}
  for (const channel of CHANNELS) {
    all[channel] =
      given[channel] ??
      (() => Promise.reject(new DesktopApiError('internal', `test did not expect ${channel}`)))
  }
  return all as Handlers
}
