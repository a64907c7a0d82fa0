import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { handlersWith } from '../support/handlers'
import { RENDERER_CSP } from '../../../../electron/shared/security'
import { MAX_BODY_BYTES, startWebHost, type WebHost } from '../../../../electron/web/web-host'

const TOKEN = 'test-token-0123456789abcdef'
let host: WebHost
let dir: string
let calls = 0

const handlers = handlersWith({
  'app:info': () => {
    calls += 1
    return Promise.resolve({
      name: 'Closebook',
      version: '9.9.9',
      host: 'web',
      platform: 'linux',
      keychain: { available: false },
    })
  },
  'app:openExternal': () => Promise.resolve({ opened: true }),
})

interface Reply {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: string
}

/** Raw HTTP, so tests control Host and Origin exactly as a hostile page or a rebinding DNS would. */
function send(options: {
  method?: string
  path: string
  headers?: Record<string, string>
  body?: string | Buffer
}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: host.port,
        method: options.method ?? 'GET',
        path: options.path,
        headers: options.headers,
      },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        )
      },
    )
    req.on('error', reject)
    req.end(options.body)
  })
}

function call(headers: Record<string, string>, body = '{"args":{}}'): Promise<Reply> {
  return send({
    method: 'POST',
    path: '/api/call/app:info',
    headers: { 'Content-Type': 'application/json', ...headers },
    body,
  })
}

const own = (): Record<string, string> => ({ Host: `127.0.0.1:${host.port}` })

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'closebook-web-'))
  await mkdir(join(dir, 'assets'))
  await writeFile(join(dir, 'index.html'), '<!doctype html><title>x</title>')
  await writeFile(join(dir, 'assets', 'app.js'), 'console.log(1)')
  await writeFile(join(tmpdir(), 'closebook-outside.txt'), 'outside')
  host = await startWebHost({ port: 0, rendererDir: dir, handlers, token: TOKEN })
})

afterAll(async () => {
  await host.close()
  await rm(dir, { recursive: true, force: true })
})

describe('web host', () => {
  it('listens on 127.0.0.1 and prints a launch URL that carries the token', () => {
    expect(host.origin).toBe(`http://127.0.0.1:${host.port}`)
    expect(host.launchUrl).toBe(`${host.origin}/?token=${TOKEN}`)
  })

  it('answers a call that carries the token, our Host and our Origin', async () => {
    const reply = await call({ ...own(), Authorization: `Bearer ${TOKEN}`, Origin: host.origin })
    expect(reply.status).toBe(200)
    expect(JSON.parse(reply.body)).toMatchObject({ ok: true, value: { version: '9.9.9' } })
  })

  it('refuses a call without the token, or with a wrong one, before any handler runs', async () => {
    const before = calls
    expect((await call(own())).status).toBe(401)
    expect((await call({ ...own(), Authorization: 'Bearer wrong' })).status).toBe(401)
    expect((await call({ ...own(), Authorization: `Bearer ${TOKEN}x` })).status).toBe(401)
    expect((await call({ ...own(), Authorization: TOKEN })).status).toBe(401)
    expect(calls).toBe(before)
  })

  it('refuses a foreign Origin even with the right token', async () => {
    const reply = await call({ ...own(), Authorization: `Bearer ${TOKEN}`, Origin: 'http://evil.example' })
    expect(reply.status).toBe(403)
    const otherPort = await call({
      ...own(),
      Authorization: `Bearer ${TOKEN}`,
      Origin: `http://127.0.0.1:${host.port + 1}`,
    })
    expect(otherPort.status).toBe(403)
  })

  it('refuses a foreign Host header (DNS rebinding), for calls and for pages', async () => {
    const rebinding = { Host: `evil.example:${host.port}` }
    expect((await call({ ...rebinding, Authorization: `Bearer ${TOKEN}` })).status).toBe(403)
    expect((await send({ path: '/', headers: rebinding })).status).toBe(403)
    expect((await send({ path: '/', headers: { Host: '127.0.0.1' } })).status).toBe(403)
  })

  it('refuses bodies that are not JSON, oversized, or unknown calls', async () => {
    const auth = { ...own(), Authorization: `Bearer ${TOKEN}` }
    expect((await call({ ...auth, 'Content-Type': 'text/plain' })).status).toBe(415)
    expect((await call(auth, '{not json')).status).toBe(400)
    const big = Buffer.alloc(MAX_BODY_BYTES + 1, 32)
    const tooLarge = await call(auth, big.toString()).catch((e: NodeJS.ErrnoException) => ({
      status: e.code === 'EPIPE' || e.code === 'ECONNRESET' ? 413 : 0,
    }))
    expect(tooLarge.status).toBe(413)
    const unknown = await send({
      method: 'POST',
      path: '/api/call/app:shell',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: '{}',
    })
    expect(unknown.status).toBe(404)
  })

  it('serves the renderer with the CSP and no-sniff headers', async () => {
    const page = await send({ path: '/', headers: own() })
    expect(page.status).toBe(200)
    expect(page.headers['content-security-policy']).toBe(RENDERER_CSP)
    expect(page.headers['x-content-type-options']).toBe('nosniff')
    const script = await send({ path: '/assets/app.js', headers: own() })
    expect(script.status).toBe(200)
    expect(script.headers['content-type']).toContain('text/javascript')
  })

  it('never serves a file outside the renderer directory', async () => {
    for (const path of [
      '/../closebook-outside.txt',
      '/%2e%2e/closebook-outside.txt',
      '/assets/..%2f..%2fcloseboook-outside.txt',
    ]) {
      const reply = await send({ path, headers: own() })
      expect(reply.status, path).toBe(404)
      expect(reply.body).not.toContain('outside')
    }
  })

  it('answers a malformed percent-escape with 400, not 500', async () => {
    for (const path of ['/%', '/%zz', '/assets/%E0%A4%A']) {
      const reply = await send({ path, headers: own() })
      expect(reply.status, path).toBe(400)
      expect(JSON.parse(reply.body)).toMatchObject({ ok: false, error: { code: 'bad_request' } })
    }
  })

  it('refuses a call body nested deeper than the bound before any handler runs', async () => {
    const before = calls
    const deep = `{"args":${'['.repeat(200_000)}${']'.repeat(200_000)}}`
    const reply = await call({ ...own(), Authorization: `Bearer ${TOKEN}` }, deep)
    expect(reply.status).toBe(400)
    expect(JSON.parse(reply.body)).toMatchObject({ ok: false, error: { code: 'invalid_argument' } })
    expect(calls).toBe(before)
  })

  it('exchanges a one-time launch code for the token exactly once', async () => {
    const url = new URL(host.oneTimeUrl())
    const code = url.searchParams.get('launch') ?? ''
    expect(url.origin).toBe(host.origin)
    expect(url.href).not.toContain(TOKEN)
    const exchange = () =>
      send({
        method: 'POST',
        path: '/api/session',
        headers: { ...own(), 'Content-Type': 'application/json' },
        body: JSON.stringify({ code }),
      })
    const first = await exchange()
    expect(first.status).toBe(200)
    expect(JSON.parse(first.body)).toEqual({ token: TOKEN })
    const again = await exchange()
    expect(again.status).toBe(401)
    expect(again.body).not.toContain(TOKEN)
    const foreign = await send({
      method: 'POST',
      path: '/api/session',
      headers: { ...own(), 'Content-Type': 'application/json', Origin: 'http://evil.example' },
      body: JSON.stringify({ code: new URL(host.oneTimeUrl()).searchParams.get('launch') }),
    })
    expect(foreign.status).toBe(403)
  })
})
