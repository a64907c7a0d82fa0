import type { ConnectionsService } from '../connections/connections-service'
import type { SecretStore } from '../vault/secret-store'
import type { HandlersFor } from './types'

export function vaultHandlers(
  connections: ConnectionsService,
  secretStore: SecretStore,
): HandlersFor<'vault'> {
  return {
    'vault:status': ({ refresh }) => connections.keychainStatus(refresh ?? false),
    'vault:cancelWaits': () => Promise.resolve({ cancelled: secretStore.cancelWaiting?.() ?? 0 }),
  }
}
