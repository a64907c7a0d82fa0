/**
 * One web host per data directory, always on the same origin.
 *
 * The browser keys IndexedDB by origin, port included, and IndexedDB is where the accountant's cache,
 * marks, notes, locks and audit log live. A port picked afresh at each launch would leave all of it
 * behind under the old origin. So the port is remembered in `<dataDir>/web-host.json` and reused by
 * every default launch; when it is taken the host says so and stops, rather than moving to a new origin.
 *
 * Two hosts on one data directory would each rewrite `connections.json` from their own copy and lose a
 * connection (orphaning its keychain entry). `<dataDir>/web-host.lock` (created exclusively, holding the
 * owner's pid and URL) makes a second host refuse and say what is already running. A lock left by a
 * crashed host (its pid is gone) is taken over.
 */
import { randomInt } from 'node:crypto'
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { join } from 'node:path'

export const PORT_FILE = 'web-host.json'
export const LOCK_FILE = 'web-host.lock'

/** First launch: a port below Linux's ephemeral range (32768+), so outgoing connections rarely take it. */
const FIRST_PORT_RANGE: readonly [number, number] = [20_000, 32_000]

export class InstanceError extends Error {
  override readonly name = 'InstanceError'
}

/**
 * The data directory, readable by its owner only (it holds the connection registry and exports). A
 * directory we create, or our own default one, is made 0700; a folder the user named that already
 * existed is not changed under them (it could be their home): they are told instead. Returns that warning.
 */
export function ensurePrivateDir(dir: string, ours = true): string | undefined {
  const existed = existsSync(dir)
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  if (!existed || ours) {
    chmodSync(dir, 0o700)
    return undefined
  }
  const mode = statSync(dir).mode & 0o777
  return mode & 0o077
    ? `the data directory ${dir} can be read by other users (mode ${mode.toString(8)}); ` +
        `exports and the connection list are kept there: consider chmod 700.`
    : undefined
}

export function readRememberedPort(dataDir: string): number | null {
  try {
    const parsed = JSON.parse(readFileSync(join(dataDir, PORT_FILE), 'utf8')) as { port?: unknown }
    const port = parsed.port
    return typeof port === 'number' && Number.isInteger(port) && port > 0 && port < 65536 ? port : null
  } catch {
    return null
  }
}

export function rememberPort(dataDir: string, port: number): void {
  writeFileSync(join(dataDir, PORT_FILE), `${JSON.stringify({ port }, null, 2)}\n`, { mode: 0o600 })
}

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer()
    probe.once('error', () => resolve(false))
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)))
  })
}

/** A free port for a data directory's first launch. */
export async function pickFirstPort(
  random: (min: number, max: number) => number = randomInt,
): Promise<number> {
  for (let i = 0; i < 20; i++) {
    const port = random(FIRST_PORT_RANGE[0], FIRST_PORT_RANGE[1])
    if (await portIsFree(port)) return port
  }
  return 0 // the range is crowded: let the system choose (it is remembered all the same)
}

export type PortChoice =
  | { port: number; remember: true; why: 'remembered' | 'first-launch' | 'given' }
  | { port: 0; remember: false; why: 'ephemeral' }

/**
 * `--port` absent: the remembered port, or a new one to remember. `--port N`: N, remembered from now
 * on. `--port 0`: any free port, not remembered (throwaway hosts such as tests).
 */
export async function choosePort(dataDir: string, given: number | undefined): Promise<PortChoice> {
  if (given === 0) return { port: 0, remember: false, why: 'ephemeral' }
  if (given !== undefined) return { port: given, remember: true, why: 'given' }
  const remembered = readRememberedPort(dataDir)
  if (remembered !== null) return { port: remembered, remember: true, why: 'remembered' }
  return { port: await pickFirstPort(), remember: true, why: 'first-launch' }
}

/** The message for a port someone else holds: why it matters, and what to do. */
export function portTakenMessage(port: number, choice: PortChoice['why'], dataDir: string): string {
  const origin = `http://127.0.0.1:${port}`
  if (choice === 'remembered')
    return (
      `port ${port} is in use by another program. This data directory's cache (records, marks, notes, ` +
      `audit log) lives in your browser under ${origin}, so the web host only starts there. Stop the ` +
      `program using port ${port} and start again. (--port N moves to a new origin whose cache starts ` +
      `empty: make a backup in Settings first, then restore it there. Data: ${dataDir})`
    )
  return `port ${port} is in use by another program; choose another with --port N.`
}

export interface InstanceLock {
  /** Records the URL the host serves, for a second launch to point at. */
  describe(url: string): void
  release(): void
}

interface LockContent {
  pid: number
  url?: string
  startedAt: string
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: it exists but belongs to someone else; still running.
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** Takes the data directory's lock, or throws an InstanceError that says what holds it. */
export function acquireInstanceLock(dataDir: string, pid: number = process.pid): InstanceLock {
  const path = join(dataDir, LOCK_FILE)
  const write = (content: LockContent, flag: 'wx' | 'w'): void =>
    writeFileSync(path, `${JSON.stringify(content)}\n`, { flag, mode: 0o600 })
  const startedAt = new Date().toISOString()
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      write({ pid, startedAt }, 'wx')
      let released = false
      return {
        describe: (url) => write({ pid, url, startedAt }, 'w'),
        release: () => {
          if (released) return
          released = true
          rmSync(path, { force: true })
        },
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    }
    let holder: LockContent | null = null
    try {
      holder = JSON.parse(readFileSync(path, 'utf8')) as LockContent
    } catch {
      holder = null // half-written by a host starting right now, or garbage: look again
    }
    if (holder && typeof holder.pid === 'number' && holder.pid !== pid && isAlive(holder.pid)) {
      throw new InstanceError(
        `another Closebook web host (pid ${holder.pid}, since ${holder.startedAt}) is already running ` +
          `on this data directory (${dataDir})` +
          (holder.url ? ` at ${holder.url.replace(/\?.*$/, '')}` : '') +
          '. Use that one (its tab, or the URL it printed), or stop it first; two hosts on one data ' +
          `directory would overwrite each other’s connections. (If no Closebook web host is running, ` +
          `another program took over its process id: delete ${path}.)`,
      )
    }
    if (holder || attempt > 0)
      rmSync(path, { force: true }) // left by a host that is gone
    else Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100) // let its writer finish
  }
  throw new InstanceError(`could not take the lock ${path}; remove it if no Closebook web host is running.`)
}
