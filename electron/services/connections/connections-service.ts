/**
 * Connections: the registry (non-secret, JSON in dataDir) plus the keychain (secret + app token, one entry
 * per connection). The base URL is bound to the credentials here in main: the renderer names a connection
 * by id, never a host, and changing a connection's base URL requires entering its credentials again, so
 * stored credentials are never sent anywhere but where they were entered for.
 *
 * The demo connection (registered by the sandbox) keeps generated credentials in memory only: it needs
 * no keychain and is not saved to the registry.
 */
import { randomUUID } from 'node:crypto'
import type { z } from 'zod'
import {
  checkBaseUrl,
  createConnectionArgsSchema,
  updateConnectionArgsSchema,
  type ConnectionSummary,
  type CreateConnectionArgs,
  type UpdateConnectionArgs,
} from '../../shared/contract/connections'
import { DesktopApiError, fieldIssuesFromZod, invalidArgument } from '../../shared/errors'
import {
  assertUsableCredentials,
  CredentialVault,
  validateCredentials,
  type Credentials,
} from '../vault/credentials'
import { InMemorySecretStore, type KeychainStatus, type SecretStore } from '../vault/secret-store'
import type { ConnectionRegistry, StoredConnection } from './connection-registry'

/** What the API client needs for one call; stays in main. */
export interface ResolvedConnection {
  id: string
  label: string
  baseUrl: string
  isDemo: boolean
  credentials: Credentials
  appTokenExpiresAt: number | null
  /** The stores the connection is limited to; empty: the all-stores lists. */
  storeIds: string[]
}

export interface DemoConnectionInput {
  /** Fixed, so marks and cache on demo records survive a restart; a fresh UUID if omitted. */
  id?: string
  label: string
  baseUrl: string
  secret: string
  appToken: string
  storeIds: string[]
  timeZone: string
}

export interface ConnectionsServiceOptions {
  registry: ConnectionRegistry
  secretStore: SecretStore
  clock: { now(): number }
  log?: { warn(message: string): void }
}

function parseArgs<S extends z.ZodType>(schema: S, args: unknown, what: string): z.output<S> {
  const parsed = schema.safeParse(args)
  if (!parsed.success) throw invalidArgument(what, fieldIssuesFromZod(parsed.error))
  return parsed.data
}

function normalizeBaseUrl(raw: string): string {
  const check = checkBaseUrl(raw)
  if (!check.ok) throw invalidArgument('connection', [{ path: 'baseUrl', message: check.message }])
  return check.url
}

export class ConnectionsService {
  private readonly registry: ConnectionRegistry
  private readonly vault: CredentialVault
  private readonly demoVault = new CredentialVault(new InMemorySecretStore())
  private readonly clock: { now(): number }
  private readonly log: { warn(message: string): void }
  private saved: StoredConnection[] = []
  private readonly demos = new Map<string, StoredConnection>()
  private readonly credentialCache = new Map<string, Credentials>()
  /** Bumped whenever a connection's base URL or credentials change or it is deleted (see `resolve`). */
  private readonly generations = new Map<string, number>()
  /** Connections whose base URL or credentials are being changed right now, settled when done. */
  private readonly changes = new Map<string, Promise<void>>()
  private loading: Promise<void> | undefined
  private registryProblem: string | undefined
  private keychain: Promise<KeychainStatus> | undefined
  /** Mutations run one at a time, so two saves never interleave. */
  private chain: Promise<unknown> = Promise.resolve()
  private readonly listeners = new Set<(connectionId: string) => void>()

  constructor(options: ConnectionsServiceOptions) {
    this.registry = options.registry
    this.vault = new CredentialVault(options.secretStore)
    this.clock = options.clock
    this.log = options.log ?? { warn: () => undefined }
  }

  /** Probing writes an entry, so it is done once per launch unless asked again. */
  async keychainStatus(refresh = false): Promise<KeychainStatus & { registryProblem?: string }> {
    if (refresh || !this.keychain) this.keychain = this.vault.probe()
    const status = await this.keychain
    await this.ensureLoaded().catch(() => undefined)
    return this.registryProblem ? { ...status, registryProblem: this.registryProblem } : status
  }

  /** Called with a connection's id when its base URL or credentials change or it is deleted. */
  onInvalidate(listener: (connectionId: string) => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  async list(): Promise<ConnectionSummary[]> {
    await this.ensureLoaded()
    return [
      ...this.saved.map((c) => this.summary(c, false)),
      ...[...this.demos.values()].map((c) => this.summary(c, true)),
    ]
  }

  create(args: CreateConnectionArgs): Promise<ConnectionSummary> {
    return this.exclusive(async () => {
      const input = parseArgs(createConnectionArgsSchema, args, 'connection')
      const credentials = { secret: input.secret, appToken: input.appToken }
      validateCredentials(credentials, this.clock.now())
      await this.ensureLoaded()
      const now = new Date(this.clock.now()).toISOString()
      const record: StoredConnection = {
        id: randomUUID(),
        label: input.label,
        baseUrl: normalizeBaseUrl(input.baseUrl),
        storeIds: input.storeIds ?? [],
        timeZone: input.timeZone,
        hasCredentials: true,
        createdAt: now,
        updatedAt: now,
      }
      await this.vault.save(record.id, credentials)
      try {
        await this.registry.save([...this.saved, record])
      } catch (error) {
        await this.vault.remove(record.id)
        throw error
      }
      this.saved = [...this.saved, record]
      return this.summary(record, false)
    })
  }

  update(args: UpdateConnectionArgs): Promise<ConnectionSummary> {
    return this.exclusive(async () => {
      const input = parseArgs(updateConnectionArgsSchema, args, 'connection update')
      await this.ensureLoaded()
      const demo = this.demos.get(input.id)
      const existing = demo ?? this.saved.find((c) => c.id === input.id)
      if (!existing) throw this.notFound()
      const baseUrl = input.baseUrl !== undefined ? normalizeBaseUrl(input.baseUrl) : existing.baseUrl
      const hostChanged = baseUrl !== existing.baseUrl
      if (demo && (hostChanged || input.credentials)) {
        throw invalidArgument('connection update', [
          {
            path: input.credentials ? 'credentials' : 'baseUrl',
            message: 'the demo connection manages its own',
          },
        ])
      }
      if (hostChanged && !input.credentials) {
        throw invalidArgument('connection update', [
          {
            path: 'credentials',
            message: 'required when the base URL changes, so stored credentials are never sent to a new host',
          },
        ])
      }
      if (input.credentials) validateCredentials(input.credentials, this.clock.now(), 'credentials')
      const record: StoredConnection = {
        ...existing,
        label: input.label ?? existing.label,
        baseUrl,
        storeIds: input.storeIds ?? existing.storeIds,
        timeZone: input.timeZone ?? existing.timeZone,
        hasCredentials: input.credentials ? true : existing.hasCredentials,
        updatedAt: new Date(this.clock.now()).toISOString(),
      }
      if (demo) {
        this.demos.set(record.id, record)
        return this.summary(record, true)
      }
      if (!input.credentials && !hostChanged) {
        const next = this.saved.map((c) => (c.id === record.id ? record : c))
        await this.registry.save(next)
        this.saved = next
        return this.summary(record, false)
      }
      // While the keychain and registry change, a resolve() could pair new credentials with the old
      // base URL or the reverse: it waits for this change and never caches what it read meanwhile.
      return this.changing(record.id, async () => {
        if (input.credentials) await this.vault.save(record.id, input.credentials)
        const next = this.saved.map((c) => (c.id === record.id ? record : c))
        await this.registry.save(next)
        this.saved = next
        return this.summary(record, false)
      })
    })
  }

  delete(id: string): Promise<{ deleted: boolean; credentialsRemoved: boolean }> {
    return this.exclusive(async () => {
      await this.ensureLoaded()
      if (this.demos.delete(id)) {
        this.invalidate(id)
        return { deleted: true, credentialsRemoved: await this.demoVault.remove(id) }
      }
      return this.changing(id, async () => {
        // Remove the keychain entry even for an id the registry has forgotten: no orphaned secrets.
        const credentialsRemoved = await this.vault.remove(id)
        const exists = this.saved.some((c) => c.id === id)
        if (exists) {
          const next = this.saved.filter((c) => c.id !== id)
          await this.registry.save(next)
          this.saved = next
        }
        return { deleted: exists, credentialsRemoved }
      })
    })
  }

  /** Is this demo connection registered (it is forgotten when deleted)? */
  hasDemo(id: string): boolean {
    return this.demos.has(id)
  }

  /** For the sandbox's "Try with demo data": credentials in memory, no keychain needed, not saved. */
  registerDemo(input: DemoConnectionInput): Promise<ConnectionSummary> {
    return this.exclusive(async () => {
      const credentials = { secret: input.secret, appToken: input.appToken }
      validateCredentials(credentials, this.clock.now())
      const label = parseArgs(createConnectionArgsSchema.shape.label, input.label, 'demo connection')
      const timeZone = parseArgs(createConnectionArgsSchema.shape.timeZone, input.timeZone, 'demo connection')
      const storeIds = parseArgs(createConnectionArgsSchema.shape.storeIds, input.storeIds, 'demo connection')
      const now = new Date(this.clock.now()).toISOString()
      const record: StoredConnection = {
        id: input.id ?? randomUUID(),
        label,
        baseUrl: normalizeBaseUrl(input.baseUrl),
        storeIds: storeIds ?? [],
        timeZone,
        hasCredentials: true,
        createdAt: now,
        updatedAt: now,
      }
      await this.demoVault.save(record.id, credentials)
      this.demos.set(record.id, record)
      return this.summary(record, true)
    })
  }

  /**
   * Base URL and usable credentials of a connection, for one call. Never leaves main.
   *
   * Reading the keychain takes time, and `update()` may change the base URL or credentials (and clear
   * the cache) meanwhile. Each connection has a generation, bumped by every invalidation: what was read
   * under an older generation is neither cached nor returned, so old credentials can never be cached
   * after an update and then sent to the new base URL.
   */
  async resolve(id: string): Promise<ResolvedConnection> {
    await this.ensureLoaded()
    for (let attempt = 0; ; attempt++) {
      await this.changes.get(id)
      const generation = this.generationOf(id)
      const demo = this.demos.get(id)
      const record = demo ?? this.saved.find((c) => c.id === id)
      if (!record) throw this.notFound()
      let credentials = this.credentialCache.get(id)
      if (!credentials) {
        const read = await (demo ? this.demoVault : this.vault).read(id)
        if (this.generationOf(id) !== generation || this.changes.has(id)) {
          // Changed while we read: start again from the current record. Updates are user actions, so
          // this settles at once; the bound only guards against a pathological stream of them.
          if (attempt < 5) continue
          throw new DesktopApiError(
            'conflict',
            `The connection "${record.label}" keeps changing; try again in a moment.`,
          )
        }
        if (!read) {
          throw new DesktopApiError(
            'unauthorized',
            `No credentials are stored for "${record.label}"; enter its secret and app token again.`,
            { reason: 'missing_credentials' },
          )
        }
        credentials = read
        this.credentialCache.set(id, credentials)
      }
      const { expiresAt } = assertUsableCredentials(credentials, this.clock.now())
      return {
        id,
        label: record.label,
        baseUrl: record.baseUrl,
        isDemo: demo !== undefined,
        credentials,
        appTokenExpiresAt: expiresAt,
        storeIds: [...record.storeIds],
      }
    }
  }

  /** Runs a change of a connection's base URL or credentials: invalidated before and after. */
  private async changing<T>(id: string, run: () => Promise<T>): Promise<T> {
    this.invalidate(id)
    let done!: () => void
    this.changes.set(id, new Promise<void>((resolve) => (done = resolve)))
    try {
      return await run()
    } finally {
      this.changes.delete(id)
      this.invalidate(id)
      done()
    }
  }

  private generationOf(id: string): number {
    return this.generations.get(id) ?? 0
  }

  private summary(record: StoredConnection, isDemo: boolean): ConnectionSummary {
    return {
      id: record.id,
      label: record.label,
      baseUrl: record.baseUrl,
      storeIds: [...record.storeIds],
      timeZone: record.timeZone,
      hasCredentials: record.hasCredentials,
      isDemo,
      createdAt: record.createdAt,
      updatedAt: record.updatedAt,
    }
  }

  private notFound(): DesktopApiError {
    return new DesktopApiError('not_found', 'There is no such connection; it may have been deleted.')
  }

  private invalidate(id: string): void {
    this.generations.set(id, this.generationOf(id) + 1)
    this.credentialCache.delete(id)
    for (const listener of this.listeners) listener(id)
  }

  private ensureLoaded(): Promise<void> {
    this.loading ??= this.registry.load().then(
      (loaded) => {
        this.saved = loaded.connections
        if (loaded.problem) {
          this.registryProblem = loaded.problem
          this.log.warn(loaded.problem)
        }
      },
      (error: unknown) => {
        this.loading = undefined // a later call tries again (e.g. after permissions are fixed)
        throw error
      },
    )
    return this.loading
  }

  private exclusive<T>(run: () => Promise<T>): Promise<T> {
    const result = this.chain.then(run, run)
    this.chain = result.catch(() => undefined)
    return result
  }
}
