// A throwaway PostgreSQL cluster for tests: Debian's server binaries, `initdb` in a temporary folder, started
// by `pg_ctl` on a free loopback port, stopped and deleted by `stop()`. Never a mock, never a shared server.
// PostgreSQL refuses to run as root, so as root the cluster belongs to the `postgres` system user (created
// by Debian's package). The superuser has a random password and scram-sha-256 auth, so wrong passwords fail
// as they would on a real server.
import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'

export interface TestCluster {
  host: string
  port: number
  superuser: string
  superPassword: string
  dataDir: string
  /** Stops the server immediately (`-m immediate`, like a crash) without deleting the data. */
  kill(): void
  /** Starts it again on the same port after `kill()`. */
  restart(): void
  /** Stops the server and deletes its folder. */
  stop(): void
}

/** Where Debian installs the server binaries of the newest PostgreSQL (15 or later), or null. */
export function findPostgresBin(): string | null {
  if (process.env.CLOSEBOOK_PG_BIN) return process.env.CLOSEBOOK_PG_BIN
  const root = '/usr/lib/postgresql'
  if (!existsSync(root)) return null
  const versions = readdirSync(root)
    .map(Number)
    .filter((v) => v >= 15 && existsSync(join(root, String(v), 'bin', 'initdb')))
    .sort((a, b) => b - a)
  return versions.length ? join(root, String(versions[0]), 'bin') : null
}

/** Why PostgreSQL tests cannot run here, or null when they can. */
export function postgresUnavailableReason(): string | null {
  if (findPostgresBin()) return null
  return 'no PostgreSQL 15+ server binaries in /usr/lib/postgresql (scripts/install-system-deps.sh installs them)'
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      const port = typeof address === 'object' && address ? address.port : 0
      server.close(() => resolve(port))
    })
  })
}

export interface ClusterOptions {
  /** PEM of the server's certificate (chain) and key: the cluster then runs with ssl=on. */
  ssl?: { cert: string; key: string }
}

export async function startTestCluster(options: ClusterOptions = {}): Promise<TestCluster> {
  const bin = findPostgresBin()
  if (!bin) throw new Error(postgresUnavailableReason() ?? 'no PostgreSQL')
  const asRoot = process.getuid?.() === 0
  const base = mkdtempSync(join(tmpdir(), 'closebook-pg-'))
  const dataDir = join(base, 'data')
  const superuser = 'closebook_test_super'
  const superPassword = randomBytes(12).toString('hex')
  const pwFile = join(base, 'pw')
  writeFileSync(pwFile, superPassword, { mode: 0o600 })
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim())
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim())
    chmodSync(base, 0o700)
    chownSync(base, uid, gid)
    chownSync(pwFile, uid, gid)
  }
  const run = (tool: string, args: string[]): void => {
    const command = asRoot ? 'runuser' : join(bin, tool)
    const argv = asRoot ? ['-u', 'postgres', '--', join(bin, tool), ...args] : args
    execFileSync(command, argv, { stdio: ['ignore', 'pipe', 'pipe'], cwd: base })
  }
  run('initdb', [
    '-D',
    dataDir,
    '-U',
    superuser,
    `--pwfile=${pwFile}`,
    '--auth=scram-sha-256',
    '-E',
    'UTF8',
    '--locale=C',
    '--no-sync',
  ])
  const port = await freePort()
  let sslOptions = ''
  if (options.ssl) {
    // The server reads its key only when the key file is the server user's and private to it.
    const certFile = join(base, 'server.crt')
    const keyFile = join(base, 'server.key')
    writeFileSync(certFile, options.ssl.cert, { mode: 0o644 })
    writeFileSync(keyFile, options.ssl.key, { mode: 0o600 })
    if (asRoot) {
      const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim())
      const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim())
      chownSync(certFile, uid, gid)
      chownSync(keyFile, uid, gid)
    }
    sslOptions = ` -c ssl=on -c ssl_cert_file='${certFile}' -c ssl_key_file='${keyFile}'`
  }
  const serverOptions = `-c listen_addresses=127.0.0.1 -p ${port} -c unix_socket_directories='${base}' -c fsync=off -c max_connections=200${sslOptions}`
  const start = (): void =>
    run('pg_ctl', ['-D', dataDir, '-o', serverOptions, '-l', join(base, 'log'), '-w', '-t', '60', 'start'])
  const stopWith = (mode: 'immediate' | 'fast'): void => {
    try {
      run('pg_ctl', ['-D', dataDir, '-m', mode, '-w', 'stop'])
    } catch {
      // Already stopped.
    }
  }
  start()
  // A run that ends without stop() (a failed hook, an uncaught error) still leaves no server behind.
  const stopOnExit = (): void => stopWith('immediate')
  process.once('exit', stopOnExit)
  return {
    host: '127.0.0.1',
    port,
    superuser,
    superPassword,
    dataDir,
    kill: () => stopWith('immediate'),
    restart: start,
    stop: () => {
      process.off('exit', stopOnExit)
      stopWith('fast')
      rmSync(base, { recursive: true, force: true })
    },
  }
}

/** The cluster's superuser as `pg` connection settings (no database chosen). */
export function superuserOf(
  cluster: TestCluster,
): Pick<pg.ClientConfig, 'host' | 'port' | 'user' | 'password'> {
  return { host: cluster.host, port: cluster.port, user: cluster.superuser, password: cluster.superPassword }
}

/** Creates the database `name` (a plain identifier) as the superuser. */
export async function createDatabase(cluster: TestCluster, name: string): Promise<void> {
  const boot = new pg.Client({ ...superuserOf(cluster), database: 'postgres' })
  await boot.connect()
  try {
    await boot.query(`CREATE DATABASE ${name}`)
  } finally {
    await boot.end()
  }
}
