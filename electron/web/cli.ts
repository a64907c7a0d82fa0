/**
 * `npm run start:web [-- --port N --no-open --data-dir DIR]`: the web host. Prints the URL to open on a
 * line of its own (it carries this launch's token) and stops cleanly on SIGINT/SIGTERM.
 */
import { mkdirSync, readFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { createAppServices, createHandlers } from '../services/app-services'
import { KeyringSecretStore } from '../services/vault/keyring-secret-store'
import { DownloadRegistry } from './downloads'
import { openInBrowser } from './open-browser'
import { startWebHost } from './web-host'

const HELP = `Closebook web host: the app in your browser, served on 127.0.0.1 only.

Usage: npm run start:web -- [options]

  --port N         port to listen on (default: 0, a free port)
  --no-open        do not open a browser; just print the URL
  --data-dir DIR   where the connection registry and exports live
                   (default: $XDG_DATA_HOME/closebook-web or ~/.local/share/closebook-web)
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

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: '0' },
      'no-open': { type: 'boolean', default: false },
      'data-dir': { type: 'string' },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  })
  if (values.help) {
    process.stdout.write(HELP)
    return
  }
  const port = Number(values.port)
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`--port: expected a whole number from 0 to 65535, got "${values.port}"`)
  }
  const dataDir = resolve(values['data-dir'] ?? defaultDataDir())
  mkdirSync(dataDir, { recursive: true })
  const downloads = new DownloadRegistry(join(dataDir, 'exports'))

  const services = createAppServices({
    host: 'web',
    version: appVersion(),
    platform: process.platform,
    dataDir,
    secretStore: new KeyringSecretStore(),
    openExternal: openInBrowser,
    deliverFile: downloads.deliver,
  })
  const host = await startWebHost({
    port,
    rendererDir: resolve(__dirname, '../renderer'),
    handlers: createHandlers(services),
    downloads,
    log: { error: (message) => console.error(`[closebook] ${message}`) },
  })
  process.stdout.write(
    `Closebook web host is running (data: ${dataDir}). Open this URL:\n${host.launchUrl}\n`,
  )
  if (!values['no-open']) await openInBrowser(host.launchUrl)

  const stop = (): void => {
    void host
      .close()
      .then(() => services.dispose())
      .then(() => process.exit(0))
  }
  process.once('SIGINT', stop)
  process.once('SIGTERM', stop)
}

main().catch((error: unknown) => {
  process.stderr.write(`closebook web host: ${error instanceof Error ? error.message : String(error)}\n`)
  process.exit(2)
})
