/**
 * What the renderer's `api:*` and `connections:test` calls do in main: resolve the connection (base URL +
 * credentials, never from the renderer), build and validate the request, queue it through the one
 * scheduler, and return validated items.
 */
import type { ListPageArgs, ListPageResult, QueueStateView } from '../../shared/contract/api'
import type { PayoutPageArgs, PayoutPageResult } from '../../shared/contract/payouts'
import type { ConnectionTestResult, StoreTestResult } from '../../shared/contract/connections'
import { DesktopApiError } from '../../shared/errors'
import { MAX_PAGE_LIMIT, type HistoryItem } from '../../shared/payment-api'
import type { ConnectionsService } from '../connections/connections-service'
import type { Clock } from '../scheduler/clock'
import type { Priority, Scheduler } from '../scheduler/scheduler'
import { buildListRequest, validateListQuery } from './list-request'
import { buildPayoutRequest, validatePayoutQuery } from './payout-request'
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
    const { resource, items, hasMore, totalHits, quarantined, cursorAfter, routePerMinute } = envelope
    const meta = {
      hasMore,
      ...(totalHits !== undefined ? { totalHits } : {}),
      fetchedAt: new Date(this.clock.now()).toISOString(),
      ...(quarantined.length > 0 ? { quarantined } : {}),
      ...(cursorAfter !== undefined ? { cursorAfter } : {}),
      ...(routePerMinute !== undefined ? { routePerMinute } : {}),
    }
    return resource === 'transaction_history' ? { resource, items, ...meta } : { resource, items, ...meta }
  }

  /**
   * One payout page or item (`api:payoutPage`): the same connection resolution, scheduler, retries,
   * rate-limit handling and credential scrubbing as a list page. The result is checked against the
   * contract by the dispatcher, so each item's shape is the kind's.
   */
  async payoutPage(args: PayoutPageArgs, signal?: AbortSignal): Promise<PayoutPageResult> {
    const { connectionId, priority, jobId, ...query } = args
    validatePayoutQuery(query)
    const connection = await this.connections.resolve(connectionId)
    const request = buildPayoutRequest(connection.baseUrl, query)
    const page = await this.scheduler.schedule({
      namespace: connection.id,
      route: request.route,
      exact: request.exact,
      priority: priority ?? 'interactive',
      ...(jobId !== undefined ? { jobId } : {}),
      ...(signal ? { signal } : {}),
      attempt: (s) => this.client.payout(request, connection.credentials, s),
    })
    const { quarantined, totalHits, cursorAfter } = page
    return {
      kind: page.kind,
      items: page.items,
      hasMore: page.hasMore,
      ...(totalHits !== undefined ? { totalHits } : {}),
      fetchedAt: new Date(this.clock.now()).toISOString(),
      ...(quarantined.length > 0 ? { quarantined } : {}),
      ...(cursorAfter !== undefined ? { cursorAfter } : {}),
    } as PayoutPageResult
  }

  /**
   * A page of history: who the merchant is, which stores and modes. When the connection names its stores,
   * each store is read on its own path, since that is what sync does and a store-scoped app token may not
   * read the all-stores path; each store's outcome is reported. Fails only when no store could be read.
   */
  async testConnection(connectionId: string, signal?: AbortSignal): Promise<ConnectionTestResult> {
    const connection = await this.connections.resolve(connectionId)
    const options = {
      priority: 'interactive' as const,
      maxAttempts: 2,
      timeoutMs: this.testTimeoutMs,
      ...(signal ? { signal } : {}),
    }
    const query = (storeId?: string) => ({
      resource: 'transaction_history' as const,
      ...(storeId !== undefined ? { storeId } : {}),
      paging: { limit: MAX_PAGE_LIMIT },
    })
    const pages: ListEnvelope[] = []
    const stores: StoreTestResult[] = []
    let firstError: DesktopApiError | undefined
    if (connection.storeIds.length === 0) {
      pages.push(await this.fetchList(connectionId, query(), options))
    } else {
      // One store after another: a test is a handful of requests, and a failure is reported per store.
      for (const storeId of connection.storeIds) {
        try {
          const page = await this.fetchList(connectionId, query(storeId), options)
          pages.push(page)
          stores.push({
            storeId,
            ok: true,
            storeName: page.items.find((i) => i.store_name)?.store_name ?? null,
            ...(page.totalHits !== undefined ? { totalHits: page.totalHits } : {}),
          })
        } catch (error) {
          const shaped =
            error instanceof DesktopApiError ? error : new DesktopApiError('internal', String(error))
          if (shaped.code === 'cancelled') throw shaped
          firstError ??= shaped
          const { reason, status } = shaped.details ?? {}
          stores.push({
            storeId,
            ok: false,
            error: {
              code: shaped.code,
              message: shaped.message,
              ...(typeof reason === 'string' ? { reason } : {}),
              ...(typeof status === 'number' ? { status } : {}),
            },
          })
        }
      }
      if (pages.length === 0 && firstError) throw firstError
    }
    const items = pages.flatMap((p): HistoryItem[] => (p.resource === 'transaction_history' ? p.items : []))
    const distinct = <T>(values: T[]): T[] => [...new Set(values)].sort()
    const hits = pages.map((p) => p.totalHits)
    return {
      ok: true,
      merchantName: items.find((i) => i.merchant_name)?.merchant_name ?? null,
      storeNames: distinct(items.flatMap((i) => (i.store_name ? [i.store_name] : []))),
      modes: distinct(items.map((i) => i.mode)),
      ...(hits.every((h) => h !== undefined) && hits.length > 0
        ? { totalHits: hits.reduce((a: number, b) => a + (b ?? 0), 0) }
        : {}),
      stores,
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
  ): Promise<ListEnvelope & { routePerMinute?: number }> {
    const connection = await this.connections.resolve(connectionId)
    const request = buildListRequest(connection.baseUrl, query)
    const { timeoutMs, ...scheduling } = options
    const envelope = await this.scheduler.schedule({
      namespace: connection.id,
      route: request.route,
      exact: request.exact,
      ...scheduling,
      attempt: (signal) => this.client.list(request, connection.credentials, signal, timeoutMs),
    })
    // The limit the scheduler holds for this path, learned from the headers of the answers so far.
    const perMinute = this.scheduler.limiter.limitsFor(connection.id, 'route', request.route)?.perMinute
    return perMinute !== undefined && perMinute > 0 ? { ...envelope, routePerMinute: perMinute } : envelope
  }
}
