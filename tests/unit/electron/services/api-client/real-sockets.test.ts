/**
 * The client's failure classification against real sockets on 127.0.0.1, so the codes Node's fetch really
 * produces (refused, dropped, cut short, TLS) are the ones we match.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { createServer as createHttpsServer } from 'node:https'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { buildListRequest } from '../../../../../electron/services/api-client/list-request'
import { PaymentApiClient } from '../../../../../electron/services/api-client/payment-api-client'
import { systemClock } from '../../../../../electron/services/scheduler/clock'
import { CANARY_CREDENTIALS, canaryLeaks } from '../support/fixtures'

const servers: Server[] = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))))
})

async function listen(server: Server): Promise<number> {
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return (server.address() as AddressInfo).port
}

const api = new PaymentApiClient({ clock: systemClock, timeoutMs: 5_000 })
const list = (base: string) =>
  api.list(buildListRequest(base, { resource: 'charges' }), CANARY_CREDENTIALS, new AbortController().signal)

describe('failures on real sockets', () => {
  it('a closed port is an unreachable host', async () => {
    const port = await listen(createServer())
    await new Promise((resolve) => servers.pop()?.close(resolve))
    const result = await list(`http://127.0.0.1:${port}`)
    expect(result).toMatchObject({
      ok: false,
      retry: 'backoff',
      error: { code: 'network', details: { reason: 'ECONNREFUSED' } },
    })
    if (!result.ok) expect(result.error.message).toContain('Unreachable host')
  })

  it('a dropped connection is a network error worth retrying', async () => {
    const port = await listen(createServer((req) => req.socket.destroy()))
    expect(await list(`http://127.0.0.1:${port}`)).toMatchObject({
      ok: false,
      retry: 'backoff',
      error: { code: 'network' },
    })
  })

  it('a body cut short is a network error worth retrying, and keeps the headers it got', async () => {
    const port = await listen(
      createServer((req, res) => {
        res.writeHead(200, { 'Content-Length': '1000', 'X-Remaining-Requests-Route': '7' })
        res.write('{"items":[')
        setTimeout(() => req.socket.destroy(), 20)
      }),
    )
    expect(await list(`http://127.0.0.1:${port}`)).toMatchObject({
      ok: false,
      retry: 'backoff',
      error: { code: 'network' },
      limits: { route: { remaining: 7 } },
    })
  })

  it('https to a plain-http port is a TLS error', async () => {
    const port = await listen(createServer((_req, res) => res.end('{}')))
    const result = await list(`https://127.0.0.1:${port}`)
    expect(result).toMatchObject({ ok: false, retry: 'never', error: { code: 'tls' } })
  })

  it('a self-signed certificate is a TLS error that says so, and the credentials were not sent', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'closebook-tls-'))
    try {
      execFileSync(
        'openssl',
        [
          'req',
          '-x509',
          '-newkey',
          'rsa:2048',
          '-nodes',
          '-keyout',
          join(dir, 'k.pem'),
          '-out',
          join(dir, 'c.pem'),
          '-days',
          '1',
          '-subj',
          '/CN=127.0.0.1',
        ],
        { stdio: 'ignore' },
      )
    } catch {
      console.log('skipped: openssl is not available to make a self-signed certificate')
      return
    }
    let sawAuthorization = false
    const server = createHttpsServer(
      { key: readFileSync(join(dir, 'k.pem')), cert: readFileSync(join(dir, 'c.pem')) },
      (req, res) => {
        sawAuthorization ||= req.headers.authorization !== undefined
        res.end('{}')
      },
    )
    const port = await listen(server)
    rmSync(dir, { recursive: true, force: true })
    const result = await list(`https://127.0.0.1:${port}`)
    expect(result).toMatchObject({
      ok: false,
      retry: 'never',
      error: { code: 'tls', details: { reason: 'DEPTH_ZERO_SELF_SIGNED_CERT' } },
    })
    if (!result.ok) {
      expect(result.error.message).toContain('self-signed')
      expect(canaryLeaks(JSON.stringify(result.error.toShape()))).toEqual([])
    }
    expect(sawAuthorization).toBe(false)
  })

  it('a redirect is not followed, so the Authorization header goes nowhere else', async () => {
    let elsewhere = 0
    const otherPort = await listen(
      createServer((_req, res) => ((elsewhere += 1), res.end('{"items":[],"has_more":false}'))),
    )
    const port = await listen(
      createServer((_req, res) => {
        res.writeHead(307, { Location: `http://127.0.0.1:${otherPort}/charges` })
        res.end()
      }),
    )
    expect(await list(`http://127.0.0.1:${port}`)).toMatchObject({
      ok: false,
      error: { code: 'server_error', details: { status: 307 } },
    })
    expect(elsewhere).toBe(0)
  })
})
