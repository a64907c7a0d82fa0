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

  start(): Promise<ConnectionSummary> {
    this.running ??= this.launch().catch((error: unknown) => {
      this.running = undefined // a failed start may be retried
      throw error
    })
    return this.running.then((r) => r.summary)
  }

  private async launch(): Promise<{ sandbox: DemoSandbox; summary: ConnectionSummary }> {
    const sandbox = await this.deps.startSandbox()
    try {
      const summary = await this.deps.connections.registerDemo({
        id: DEMO_CONNECTION_ID,
        label: 'Demo merchant',
        baseUrl: sandbox.url,
        secret: sandbox.secret,
        appToken: sandbox.appToken,
        storeIds: sandbox.storeIds,
        timeZone: this.deps.timeZone,
      })
      return { sandbox, summary }
    } catch (error) {
      await sandbox.close()
      throw error
    }
  }

  async dispose(): Promise<void> {
    const running = await this.running?.catch(() => undefined)
    this.running = undefined
    await running?.sandbox.close()
  }
}
