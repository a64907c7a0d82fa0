/**
 * What the renderer's `api:*` and `connections:test` calls do in main: resolve the connection (base URL +
 * credentials, never from the renderer), build and validate the request, queue it through the one
 * scheduler, and return validated items.
 */
import type { ListPageArgs, ListPageResult, QueueStateView } from '../../shared/contract/api'
import type { ConnectionTestResult } from '../../shared/contract/connections'
import { MAX_PAGE_LIMIT } from '../../shared/payment-api'
import type { ConnectionsService } from '../connections/connections-service'
import type { Clock } from '../scheduler/clock'
import type { Priority, Scheduler } from '../scheduler/scheduler'
import { buildListRequest, validateListQuery } from './list-request'
import type { ListEnvelope, PaymentApiClient } from './payment-api-client'

export interface ApiGatewayOptions {
  connections: ConnectionsService
  scheduler: Scheduler
  client: PaymentApiClient
  clock: Clock
  /** A connection test should answer quickly: one retry at most, and a shorter timeout. */
  testTimeoutMs?: number
}

export class ApiGateway {
  private readonly connections: ConnectionsService
  readonly scheduler: Scheduler
  private readonly client: PaymentApiClient
  private readonly clock: Clock
  private readonly testTimeoutMs: number

  constructor(options: ApiGatewayOptions) {
    this.connections = options.connections
    this.scheduler = options.scheduler
    this.client = options.client
    this.clock = options.clock
    this.testTimeoutMs = options.testTimeoutMs ?? 10_000
    // Calls still queued for a connection whose host or credentials changed, or that was deleted, are dropped.
    this.connections.onInvalidate((id) => this.scheduler.cancelNamespace(id))
  }

  async listPage(args: ListPageArgs, signal?: AbortSignal): Promise<ListPageResult> {
    const { connectionId, priority, jobId, ...query } = args
    validateListQuery(query) // before the keychain is touched: a bad filter is named at once
    const envelope = await this.fetchList(connectionId, query, {
      priority: priority ?? 'interactive',
      ...(jobId !== undefined ? { jobId } : {}),
      ...(signal ? { signal } : {}),
    })
    const meta = {
      hasMore: envelope.list.has_more,
      ...(envelope.list.total_hits !== undefined ? { totalHits: envelope.list.total_hits } : {}),
      fetchedAt: new Date(this.clock.now()).toISOString(),
    }
    return envelope.resource === 'transaction_history'
      ? { resource: envelope.resource, items: envelope.list.items, ...meta }
      : { resource: envelope.resource, items: envelope.list.items, ...meta }
  }

  /** One request for a page of history across all stores: who the merchant is, which stores and modes. */
  async testConnection(connectionId: string, signal?: AbortSignal): Promise<ConnectionTestResult> {
    const connection = await this.connections.resolve(connectionId)
    const envelope = await this.fetchList(
      connectionId,
      { resource: 'transaction_history', paging: { limit: MAX_PAGE_LIMIT } },
      {
        priority: 'interactive',
        maxAttempts: 2,
        timeoutMs: this.testTimeoutMs,
        ...(signal ? { signal } : {}),
      },
    )
    const items = envelope.list.items
    const distinct = <T>(values: T[]): T[] => [...new Set(values)].sort()
    return {
      ok: true,
      merchantName: items[0]?.merchant_name ?? null,
      storeNames: distinct(items.map((i) => i.store_name)),
      modes: distinct(items.map((i) => i.mode)),
      ...(envelope.list.total_hits !== undefined ? { totalHits: envelope.list.total_hits } : {}),
      appTokenExpiresAt:
        connection.appTokenExpiresAt === null ? null : new Date(connection.appTokenExpiresAt).toISOString(),
      testedAt: new Date(this.clock.now()).toISOString(),
    }
  }

  queueState(): QueueStateView {
    return this.scheduler.state()
  }

  cancelJob(jobId: string): { dropped: number } {
    return { dropped: this.scheduler.cancelJob(jobId) }
  }

  private async fetchList(
    connectionId: string,
    query: unknown,
    options: {
      priority: Priority
      jobId?: string
      signal?: AbortSignal
      maxAttempts?: number
      timeoutMs?: number
    },
  ): Promise<ListEnvelope> {
    const connection = await this.connections.resolve(connectionId)
    const request = buildListRequest(connection.baseUrl, query)
    const { timeoutMs, ...scheduling } = options
    return this.scheduler.schedule({
      namespace: connection.id,
      route: request.route,
      exact: request.exact,
      ...scheduling,
      attempt: (signal) => this.client.list(request, connection.credentials, signal, timeoutMs),
    })
  }
}
