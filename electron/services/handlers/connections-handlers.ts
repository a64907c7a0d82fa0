import type { ApiGateway } from '../api-client/api-gateway'
import type { ConnectionsService } from '../connections/connections-service'
import type { HandlersFor } from './types'

export function connectionsHandlers(
  connections: ConnectionsService,
  gateway: ApiGateway,
): HandlersFor<'connections'> {
  return {
    'connections:list': () => connections.list(),
    'connections:create': (args) => connections.create(args),
    'connections:update': (args) => connections.update(args),
    'connections:delete': ({ id }) => connections.delete(id),
    'connections:test': ({ id }, ctx) => gateway.testConnection(id, ctx.signal),
  }
}
