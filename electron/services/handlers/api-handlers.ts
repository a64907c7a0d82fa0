import type { ApiGateway } from '../api-client/api-gateway'
import type { HandlersFor } from './types'

export function apiHandlers(gateway: ApiGateway): HandlersFor<'api'> {
  return {
    // The caller's signal: a closed window or aborted HTTP request drops its queued call.
    'api:listPage': (args, ctx) => gateway.listPage(args, ctx.signal),
    'api:queueState': () => Promise.resolve(gateway.queueState()),
    'api:cancelJob': ({ jobId }) => Promise.resolve(gateway.cancelJob(jobId)),
    'api:payoutPage': (args, ctx) => gateway.payoutPage(args, ctx.signal),
  }
}
