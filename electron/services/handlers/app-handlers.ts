import type { AppServices } from '../app-services'
import type { HandlersFor } from './types'

/** Allow-list of external links; the renderer names a target, never a URL. */
export const EXTERNAL_LINKS = {
  docs: 'https://github.com/closebook-app/closebook#readme',
  'seed-api': 'https://docs.univapay.com/',
} as const

export function appHandlers(services: AppServices): HandlersFor<'app'> {
  return {
    'app:info': async () => ({
      name: 'Closebook',
      version: services.version,
      host: services.host,
      platform: services.platform,
      keychain: await services.keychainStatus(),
    }),
    'app:openExternal': async ({ target }) => {
      await services.openExternal(EXTERNAL_LINKS[target])
      return { opened: true }
    },
  }
}
