/**
 * `npm run start:web [-- --port N --no-open --data-dir DIR]`: the web host. Prints the URL to open on a
 * line of its own (it carries this launch's token) and stops cleanly on SIGINT/SIGTERM.
 */
import { readFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { createAppServices, createHandlers } from '../services/app-services'
import { KeyringSecretStore } from '../services/vault/keyring-secret-store'
import { startSandbox } from '../sandbox/server'
import { DownloadRegistry } from './downloads'
import {
  acquireInstanceLock,
  choosePort,
  ensurePrivateDir,
  InstanceError,
  portTakenMessage,
  rememberPort,
} from './instance'
import { openInBrowser } from './open-browser'
import { startWebHost } from './web-host'

const HELP = `Closebook web host: the app in your browser, served on 127.0.0.1 only.

Usage: npm run start:web -- [options]

  --port N         port to listen on, remembered for this data directory from now on
                   (default: the port remembered for the data directory, else a new one;
                   0: any free port, not remembered — the browser cache starts empty there)
  --no-open        do not open a browser; just print the URL
  --data-dir DIR   where the connection registry and exports live
                   (default: $XDG_DATA_HOME/closebook-web or ~/.local/share/closebook-web)
  --demo-storm PERIOD:DURATION
                   the demo's payment API answers 429 for the last DURATION ms of every
                   PERIOD ms (to see how the app behaves under a 429 storm; tests use it)
  --demo-store-scoped-token
                   the demo's app token is scoped to its stores: payouts answer 403
                   INVALID_PERMISSIONS (to see what the app tells the user; tests use it)
  --help           this text
`

function defaultDataDir(): string {
  const base = process.env['XDG_DATA_HOME'] || join(homedir(), '.local', 'share')
  return join(base, 'closebook-web')
}

function appVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(resolve(__dirname, '../../package.json'), 'utf8')) as {
      version?: string
    }
    return pkg.version ?? '0.0.0'
  } catch {
    return '0.0.0'
  }
}

function parseStorm(value: string | undefined): { periodMs: number; durationMs: number } | undefined {
  if (value === undefined) return undefined
  const match = /^(\d+):(\d+)$/.exec(value)
  const periodMs = Number(match?.[1])
  const durationMs = Number(match?.[2])
  if (!match || !(periodMs > 0) || durationMs >= periodMs)
    throw new Error(`--demo-storm: expected PERIOD:DURATION in ms with DURATION < PERIOD, got "${value}"`)
  return { periodMs, durationMs }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: 'string' },
      'no-open': { type: 'boolean', default: false },
      'data-dir': { type: 'string' },
      'demo-storm': { type: 'string' },
      'demo-store-scoped-token': { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  })
  if (values.help) {
    process.stdout.write(HELP)
    return
  }
  const givenPort = values.port === undefined ? undefined : Number(values.port)
  if (givenPort !== undefined && (!Number.isInteger(givenPort) || givenPort < 0 || givenPort > 65535)) {
    throw new Error(`--port: expected a whole number from 0 to 65535, got "${values.port}"`)
  }
  const storm = parseStorm(values['demo-storm'])
  const dataDir = resolve(values['data-dir'] ?? defaultDataDir())
  const exposed = ensurePrivateDir(dataDir, values['data-dir'] === undefined)
  if (exposed) process.stderr.write(`closebook web host: warning: ${exposed}\n`)
  const lock = acquireInstanceLock(dataDir)
  process.once('exit', () => lock.release())
  const choice = await choosePort(dataDir, givenPort)
  const downloads = new DownloadRegistry(join(dataDir, 'exports'))

  const services = createAppServices({
    host: 'web',
    version: appVersion(),
    platform: process.platform,
    dataDir,
    secretStore: new KeyringSecretStore(),
    openExternal: openInBrowser,
    deliverFile: downloads.deliver,
    ...(storm || values['demo-store-scoped-token']
      ? {
          startDemoSandbox: () =>
            startSandbox({
              seed: 42,
              stores: 3,
              records: 5000,
              ...(storm ? { faults: { storm } } : {}),
              ...(values['demo-store-scoped-token'] ? { appTokenScope: 'store' as const } : {}),
            }),
        }
      : {}),
  })
  // What an earlier run left (it was killed mid-export): partial files, and downloads nobody can take.
  const leftovers = await Promise.all([services.leftovers(), downloads.prepare()]).catch((error: unknown) =>
    error instanceof Error ? error : new Error(String(error)),
  )
  if (leftovers instanceof Error)
    process.stderr.write(`closebook web host: warning: leftover files not removed: ${leftovers.message}\n`)
  const host = await startWebHost({
    port: choice.port,
    rendererDir: resolve(__dirname, '../renderer'),
    handlers: createHandlers(services),
    downloads,
    log: { error: (message) => console.error(`[closebook] ${message}`) },
  }).catch(async (error: unknown) => {
    await services.dispose()
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE')
      throw new InstanceError(portTakenMessage(choice.port, choice.why, dataDir))
    throw error
  })
  if (choice.remember) rememberPort(dataDir, host.port)
  lock.describe(host.origin)
  // Before the URL is printed: whoever reads it may signal the host at once.
  const stop = (): void => {
    void host
      .close()
      .then(() => services.dispose())
      .then(() => process.exit(0))
  }
  process.once('SIGINT', stop)
  process.once('SIGTERM', stop)
  // A closed terminal: still stop cleanly, so that no export is left half-written in the data folder.
  process.once('SIGHUP', stop)
  process.stdout.write(
    `Closebook web host is running (data: ${dataDir}). Open this URL:\n${host.launchUrl}\n`,
  )
  // The browser we open gets a one-time code, not the token: see WebHost.oneTimeUrl.
  if (!values['no-open']) await openInBrowser(host.oneTimeUrl())
}

main().catch((error: unknown) => {
  process.stderr.write(`closebook web host: ${error instanceof Error ? error.message : String(error)}\n`)
  process.exit(2)
})
