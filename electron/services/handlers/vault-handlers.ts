import type { ConnectionsService } from '../connections/connections-service'
import type { HandlersFor } from './types'

export function vaultHandlers(connections: ConnectionsService): HandlersFor<'vault'> {
  return {
    'vault:status': ({ refresh }) => connections.keychainStatus(refresh ?? false),
  }
}
