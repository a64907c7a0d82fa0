/**
 * The renderer's only door to the platform. Picks the Electron preload's `window.closebook` when it is
 * there, otherwise the web host's HTTP transport. Nothing else in src/ knows which host it runs in.
 */
import { createDesktopApi, decodeBridgedErrors } from '../../electron/shared/channels'
import type { DesktopApi } from '../../electron/shared/contract'
import { createHttpTransport, sessionToken } from './http-transport'

export { DesktopApiError } from '../../electron/shared/errors'
export type { DesktopApi } from '../../electron/shared/contract'

let api: DesktopApi | undefined

export function desktopApi(): DesktopApi {
  if (api) return api
  api = window.closebook
    ? decodeBridgedErrors(window.closebook)
    : createDesktopApi(
        createHttpTransport(sessionToken(window.location, window.sessionStorage, window.history)),
      )
  return api
}

/** For unit tests of stores and views. */
export function setDesktopApiForTests(fake: DesktopApi | undefined): void {
  api = fake
}
