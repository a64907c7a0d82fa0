/**
 * The demo connection: the embedded sandbox (electron/sandbox) started in-process on a random loopback
 * port, with generated credentials held in memory. The data is deterministic for the seed, and the demo
 * connection's id is derived from it, so the renderer's cache and the accountant's marks on demo records
 * survive a restart of the app.
 */
import type { ConnectionSummary } from '../../shared/contract/connections'
import type { ConnectionsService } from '../connections/connections-service'

export interface DemoSandbox {
  url: string
  secret: string
  appToken: string
  storeIds: string[]
  close(): Promise<void>
}

export type StartDemoSandbox = () => Promise<DemoSandbox>

/** A fixed id for the demo connection of a given seed (a UUID, as connection ids are). */
export const DEMO_CONNECTION_ID = '00000000-0000-4000-8000-00000000de30'

export class DemoService {
  private running: Promise<{ sandbox: DemoSandbox; summary: ConnectionSummary }> | undefined

  constructor(
    private readonly deps: {
      connections: ConnectionsService
      startSandbox: StartDemoSandbox
      timeZone: string
    },
  ) {}

  /**
   * Starts the demo, or returns the running one. The demo connection may have been deleted meanwhile
   * (it lives in memory only): then it is registered again on the running sandbox, so "Try with demo
   * data" after a delete brings it back rather than reporting success with nothing to show.
   */
  async start(): Promise<ConnectionSummary> {
    this.running ??= this.launch().catch((error: unknown) => {
      this.running = undefined // a failed start may be retried
      throw error
    })
    const running = await this.running
    if (!this.deps.connections.hasDemo(running.summary.id))
      running.summary = await this.register(running.sandbox)
    return running.summary
  }

  private async launch(): Promise<{ sandbox: DemoSandbox; summary: ConnectionSummary }> {
    const sandbox = await this.deps.startSandbox()
    try {
      return { sandbox, summary: await this.register(sandbox) }
    } catch (error) {
      await sandbox.close()
      throw error
    }
  }

  private register(sandbox: DemoSandbox): Promise<ConnectionSummary> {
    return this.deps.connections.registerDemo({
      id: DEMO_CONNECTION_ID,
      label: 'Demo merchant',
      baseUrl: sandbox.url,
      secret: sandbox.secret,
      appToken: sandbox.appToken,
      storeIds: sandbox.storeIds,
      timeZone: this.deps.timeZone,
    })
  }

  async dispose(): Promise<void> {
    const running = await this.running?.catch(() => undefined)
    this.running = undefined
    await running?.sandbox.close()
  }
}
