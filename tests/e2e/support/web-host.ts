/**
 * Starts the built web host (`out/main/web.js`) on a free port with a throwaway data directory, and
 * gives each test its launch URL. Each test gets its own host and a fresh browser context, so its
 * IndexedDB starts empty.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { createInterface } from 'node:readline'
import { test as base } from '@playwright/test'

export interface RunningWebHost {
  launchUrl: string
  origin: string
  dataDir: string
}

const WEB_ENTRY = resolve(__dirname, '../../../out/main/web.js')

export interface StartOptions {
  /** Reuse a data directory (kept when the host stops); default: a fresh one, removed on stop. */
  dataDir?: string
  /**
   * 'ephemeral' (default): `--port 0`, a throwaway origin per test. 'default': no `--port` at all, as a
   * user launches it (the port remembered for the data directory).
   */
  port?: 'ephemeral' | 'default'
  extraArgs?: string[]
}

export async function startBuiltWebHost(extraArgsOrOptions: string[] | StartOptions = []): Promise<
  RunningWebHost & {
    stop(): Promise<void>
    stderr(): string
    signal(name: NodeJS.Signals): Promise<number | null>
  }
> {
  const options = Array.isArray(extraArgsOrOptions) ? { extraArgs: extraArgsOrOptions } : extraArgsOrOptions
  const extraArgs = options.extraArgs ?? []
  if (!existsSync(WEB_ENTRY)) throw new Error(`${WEB_ENTRY} is missing: run \`npm run build\` first.`)
  const ownDataDir = options.dataDir === undefined
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'closebook-e2e-'))
  const portArgs = options.port === 'default' ? [] : ['--port', '0']
  const child: ChildProcess = spawn(
    process.execPath,
    [WEB_ENTRY, '--no-open', ...portArgs, '--data-dir', dataDir, ...extraArgs],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  )
  let stderr = ''
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()))
  const launchUrl = await new Promise<string>((resolveUrl, reject) => {
    const timer = setTimeout(() => reject(new Error(`web host did not start in time: ${stderr}`)), 20_000)
    const lines = createInterface({ input: child.stdout! })
    lines.on('line', (line) => {
      if (/^http:\/\/127\.0\.0\.1:\d+\/\?token=/.test(line)) {
        clearTimeout(timer)
        resolveUrl(line.trim())
      }
    })
    child.once('exit', (code) => reject(new Error(`web host exited with ${code}: ${stderr}`)))
  })
  return {
    launchUrl,
    origin: new URL(launchUrl).origin,
    dataDir,
    stderr: () => stderr,
    /** Sends a signal and resolves with the exit code once the host has exited. */
    signal: async (name) => {
      if (child.exitCode !== null) return child.exitCode
      const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)))
      child.kill(name)
      return exited
    },
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r))
        child.kill('SIGTERM')
        await exited
      }
      if (ownDataDir) rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

/**
 * A fresh host per test: main keeps state of its own (the demo connection, queued calls), so a test must
 * not see what an earlier one left behind.
 */
export const test = base.extend<{ webHost: RunningWebHost }>({
  webHost: [
    // Playwright reads the fixture's dependencies from this (empty) destructuring pattern.
    // eslint-disable-next-line no-empty-pattern
    async ({}, use) => {
      const host = await startBuiltWebHost()
      await use(host)
      await host.stop()
    },
    { scope: 'test' },
  ],
})

export { expect } from '@playwright/test'
