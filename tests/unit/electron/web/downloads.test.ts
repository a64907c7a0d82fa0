import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { DownloadRegistry } from '../../../../electron/web/downloads'
import { startWebHost, type WebHost } from '../../../../electron/web/web-host'
import { handlersWith } from '../support/handlers'

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'closebook-dl-'))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

async function tempFile(content: string): Promise<string> {
  const path = join(dir, `t-${Math.random()}.partial`)
  await writeFile(path, content)
  return path
}

function get(host: WebHost, path: string): Promise<{ status: number; body: string; disposition?: string }> {
  return new Promise((resolve, reject) => {
    request(
      { host: '127.0.0.1', port: host.port, path, headers: { Host: `127.0.0.1:${host.port}` } },
      (res) => {
        let body = ''
        res.on('data', (c: Buffer) => (body += c.toString()))
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body, disposition: res.headers['content-disposition'] }),
        )
      },
    )
      .on('error', reject)
      .end()
  })
}

describe('web host downloads', () => {
  it('offers a delivered file once, under a name that never overwrites an earlier export', async () => {
    const registry = new DownloadRegistry(join(dir, 'exports'))
    const first = await registry.deliver(await tempFile('one'), 'closebook-2026-10.csv')
    const second = await registry.deliver(await tempFile('two'), 'closebook-2026-10.csv')
    expect(first).toMatchObject({ savedTo: 'download', fileName: 'closebook-2026-10.csv' })
    expect(second).toMatchObject({ savedTo: 'download', fileName: 'closebook-2026-10 (2).csv' })
    expect(await readFile(join(dir, 'exports', 'closebook-2026-10.csv'), 'utf8')).toBe('one')

    const host = await startWebHost({
      port: 0,
      rendererDir: dir,
      handlers: handlersWith({}),
      downloads: registry,
    })
    try {
      if (first.savedTo !== 'download') throw new Error('expected a download')
      const reply = await get(host, first.downloadUrl)
      expect(reply.status).toBe(200)
      expect(reply.body).toBe('one')
      expect(reply.disposition).toContain("filename*=UTF-8''closebook-2026-10.csv")
      expect((await get(host, first.downloadUrl)).status).toBe(404) // one use
      // The browser has it: the host keeps no copy of what it delivered.
      await expect
        .poll(() =>
          stat(join(dir, 'exports', 'closebook-2026-10.csv')).then(
            () => true,
            () => false,
          ),
        )
        .toBe(false)
      expect((await get(host, '/download/guessed-id')).status).toBe(404)
    } finally {
      await host.close()
    }
  })

  it('expires offers that were not taken in time, and removes their files', async () => {
    let now = 0
    const registry = new DownloadRegistry(join(dir, 'exports'), () => now, 1000)
    const offer = await registry.deliver(await tempFile('x'), 'a.json')
    now = 1001
    await registry.sweep()
    expect(await readdir(join(dir, 'exports'))).toEqual([])
    expect(
      offer.savedTo === 'download' && registry.take(offer.downloadUrl.slice('/download/'.length)),
    ).toBeNull()
  })

  it('keeps files private (0700 folder, 0600 files) and clears what an earlier run left', async () => {
    await mkdir(join(dir, 'exports'), { recursive: true, mode: 0o755 })
    await writeFile(join(dir, 'exports', 'closebook-backup-old.json'), 'left by a crash', { mode: 0o644 })
    const registry = new DownloadRegistry(join(dir, 'exports'))
    await registry.deliver(await tempFile('new'), 'closebook-2026-11.csv')
    expect(await readdir(join(dir, 'exports'))).toEqual(['closebook-2026-11.csv'])
    expect((await stat(join(dir, 'exports'))).mode & 0o777).toBe(0o700)
    expect((await stat(join(dir, 'exports', 'closebook-2026-11.csv'))).mode & 0o777).toBe(0o600)
  })
})
