/**
 * The team's PostgreSQL for end-to-end walks: a throwaway cluster (the unit tests' harness: `initdb` in a
 * temporary folder, its own port), set up with the admin commands the README gives (`npm run team -- init`,
 * `add-user`, `grant`), and a loopback relay per desktop that can cut that desktop off the server (as a
 * pulled network cable does) and let it back, while the server and the other desktops keep running.
 */
import { execFile } from 'node:child_process'
import { createServer, connect, type Server, type Socket } from 'node:net'
import { resolve } from 'node:path'
import { promisify } from 'node:util'
import pg from 'pg'
import {
  createDatabase,
  postgresUnavailableReason,
  startTestCluster,
  superuserOf,
  type TestCluster,
} from '../../unit/electron/services/support/postgres'

export { postgresUnavailableReason }

const run = promisify(execFile)
const ROOT = resolve(__dirname, '../../..')
const CLI = resolve(ROOT, 'electron/services/team/admin-cli.ts')
const TSX = resolve(ROOT, 'node_modules/.bin/tsx')

export interface TeamServer {
  cluster: TestCluster
  database: string
  /** Runs `npm run team -- …args` as the database's superuser; resolves with its output. */
  admin(args: string[], stdin?: string): Promise<string>
  /** Asks the server directly (as superuser) for one value. */
  value<T>(sql: string, params?: unknown[]): Promise<T>
  stop(): Promise<void>
}

export async function startTeamServer(database = 'closebook'): Promise<TeamServer> {
  const cluster = await startTestCluster()
  await createDatabase(cluster, database)
  const superuser = superuserOf(cluster)
  const env = {
    ...process.env,
    PGHOST: cluster.host,
    PGPORT: String(cluster.port),
    PGUSER: cluster.superuser,
    PGPASSWORD: cluster.superPassword,
    PGDATABASE: database,
  }
  return {
    cluster,
    database,
    admin: async (args, stdin) => {
      const child = run(TSX, [CLI, ...args], { env, cwd: ROOT, timeout: 60_000 })
      if (stdin !== undefined) child.child.stdin?.end(stdin)
      const { stdout } = await child
      return stdout
    },
    value: async <T>(sql: string, params: unknown[] = []): Promise<T> => {
      const client = new pg.Client({ ...superuser, database })
      await client.connect()
      try {
        const result = await client.query<{ v: T }>(sql, params)
        return result.rows[0]?.v as T
      } finally {
        await client.end()
      }
    },
    stop: () => Promise.resolve(cluster.stop()),
  }
}

export interface Relay {
  port: number
  /** Cuts every connection through the relay and refuses new ones until `online()`. */
  offline(): Promise<void>
  online(): Promise<void>
  close(): Promise<void>
}

/** A TCP relay on 127.0.0.1 to the server; what one desktop's network is in the walk. */
export async function startRelay(target: { host: string; port: number }): Promise<Relay> {
  const sockets = new Set<Socket>()
  let server: Server | null = null
  let port = 0
  const listen = async (): Promise<void> => {
    const s = createServer((inbound) => {
      const outbound = connect(target.port, target.host)
      for (const socket of [inbound, outbound]) {
        sockets.add(socket)
        socket.on('close', () => sockets.delete(socket))
        socket.on('error', () => {
          inbound.destroy()
          outbound.destroy()
        })
      }
      inbound.pipe(outbound).pipe(inbound)
    })
    await new Promise<void>((done, fail) => {
      s.once('error', fail)
      s.listen(port, '127.0.0.1', () => done())
    })
    const address = s.address()
    port = typeof address === 'object' && address ? address.port : port
    server = s
  }
  const stopListening = async (): Promise<void> => {
    const s = server
    server = null
    for (const socket of sockets) socket.destroy()
    sockets.clear()
    if (s) await new Promise<void>((done) => s.close(() => done()))
  }
  await listen()
  return {
    get port() {
      return port
    },
    offline: stopListening,
    online: listen,
    close: stopListening,
  }
}
