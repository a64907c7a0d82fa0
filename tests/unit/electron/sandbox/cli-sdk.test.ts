/** The command line, and a real client written by someone else: the univapay-node SDK from npm. */
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { resolve } from 'node:path'
import { createInterface } from 'node:readline'
import { describe, expect, it } from 'vitest'
import SDK from 'univapay-node'
import { startSandbox } from '../../../../electron/sandbox/server'

const CLI = resolve('electron/sandbox/cli.ts')

function run(args: string[]) {
  // Node itself with tsx's loader, not the tsx launcher: the launcher relays signals to a second process and,
  // on a loaded machine, could answer SIGTERM with 143 before the CLI's own handler ran.
  return spawn(process.execPath, ['--import', 'tsx', CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
}

async function output(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = run(args)
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
  const [code] = (await once(child, 'exit')) as [number | null]
  return { code, stdout, stderr }
}

describe('command line', () => {
  it('prints exactly one JSON line when ready, serves it, and stops cleanly on SIGTERM', async () => {
    const child = run([
      '--port',
      '0',
      '--seed',
      '42',
      '--stores',
      '3',
      '--records',
      '200',
      '--secret',
      'sk_cli_test',
    ])
    const lines = createInterface({ input: child.stdout })
    const [first] = (await once(lines, 'line')) as [string]
    const ready = JSON.parse(first) as { url: string; secret: string; appToken: string; storeIds: string[] }
    expect(Object.keys(ready)).toEqual(['url', 'secret', 'appToken', 'storeIds'])
    expect(ready.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(ready.secret).toBe('sk_cli_test')
    expect(ready.storeIds).toHaveLength(3)
    const res = await fetch(`${ready.url}/charges?limit=1`, {
      headers: { Authorization: `Bearer ${ready.secret}.${ready.appToken}` },
    })
    expect(((await res.json()) as { total_hits: number }).total_hits).toBe(200)
    child.kill('SIGTERM')
    const [code] = (await once(child, 'exit')) as [number | null]
    expect(code).toBe(0)
  }, 30_000)

  it('--help lists every flag', async () => {
    const { code, stdout } = await output(['--help'])
    expect(code).toBe(0)
    for (const flag of [
      '--port',
      '--seed',
      '--stores',
      '--records',
      '--from',
      '--to',
      '--secret',
      '--app-token',
      '--growth-per-minute',
      '--control',
      '--rate-scale',
      '--no-rate-limit',
      '--latency-ms',
      '--jitter-ms',
      '--fail-rate',
      '--drop-rate',
      '--truncate-rate',
      '--bad-item-rate',
      '--storm',
    ])
      expect(stdout).toContain(flag)
  }, 30_000)

  it('refuses a bad flag value naming the flag, with exit code 2', async () => {
    const { code, stderr, stdout } = await output(['--fail-rate', '2'])
    expect(code).toBe(2)
    expect(stdout).toBe('')
    expect(stderr).toContain('--fail-rate: expected a share from 0 to 1, got "2"')
    const unknown = await output(['--frobnicate'])
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toMatch(/frobnicate/)
  }, 30_000)
})

describe('univapay-node SDK against the sandbox', () => {
  it('pages through every charge, per store and for all stores, with no gap and no duplicate', async () => {
    const sb = await startSandbox({ seed: 9, stores: 3, records: 650, rateScale: 100 })
    try {
      const sdk = new SDK({ endpoint: sb.url, jwt: sb.appToken, secret: sb.secret })
      const listAllWithSdk = async (storeId?: string) => {
        const ids: string[] = []
        let cursor: string | undefined
        for (;;) {
          const page = await sdk.charges.list(
            { limit: 100, cursor, cursorDirection: 'desc' } as never,
            undefined,
            storeId,
          )
          ids.push(...page.items.map((c) => c.id))
          if (!page.hasMore) break
          cursor = page.items[page.items.length - 1]?.id
        }
        return ids
      }
      const expected = sb.data.charges.map((c) => c.id).reverse()
      const all = await listAllWithSdk()
      expect(all).toEqual(expected)
      const perStore: string[] = []
      for (const storeId of sb.storeIds) {
        const ids = await listAllWithSdk(storeId)
        expect(new Set(ids).size).toBe(ids.length)
        expect(ids).toEqual(
          sb.data
            .chargeList(storeId)
            .map((c) => c.id)
            .reverse(),
        )
        perStore.push(...ids)
      }
      expect(perStore.sort()).toEqual([...expected].sort())
      // asc too
      const asc = await sdk.charges.list({ limit: 100, cursorDirection: 'asc' } as never)
      expect(asc.items[0]?.id).toBe(sb.data.charges[0]?.id)
    } finally {
      await sb.close()
    }
  }, 60_000)
})
