/**
 * The web host: serves the built renderer and DesktopApi over HTTP, on 127.0.0.1 only.
 *
 * Who may call: only a page that holds this launch's random token (it is in the URL the CLI prints, and
 * the renderer moves it to sessionStorage). Every request must also carry our own Host (refuses DNS
 * rebinding) and, when the browser sends one, our own Origin (refuses other sites, whatever their token).
 */
import { randomBytes, timingSafeEqual } from 'node:crypto'
import { createReadStream } from 'node:fs'
import { stat } from 'node:fs/promises'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { extname, join, normalize, sep } from 'node:path'
import { RENDERER_CSP } from '../shared/security'
import { dispatch, isChannel } from '../services/dispatcher'
import type { Handlers } from '../services/handlers/types'
import type { DownloadRegistry } from './downloads'

export const API_PREFIX = '/api/call/'
export const DOWNLOAD_PREFIX = '/download/'
export const MAX_BODY_BYTES = 16 * 1024 * 1024

export interface WebHostOptions {
  /** 0 picks a free port. */
  port: number
  rendererDir: string
  handlers: Handlers
  /** Fixed only by tests; otherwise 32 random bytes per launch. */
  token?: string
  downloads?: DownloadRegistry
  log?: { error(message: string): void }
}

export interface WebHost {
  port: number
  origin: string
  /** The URL to open: carries the token as `?token=`, which the renderer removes from the address bar. */
  launchUrl: string
  close(): Promise<void>
}

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.json': 'application/json; charset=utf-8',
  '.csv': 'text/csv; charset=utf-8',
  '.xlsx': 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
}

const SECURITY_HEADERS = {
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'X-Frame-Options': 'DENY',
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given)
  const b = Buffer.from(expected)
  return a.length === b.length && timingSafeEqual(a, b)
}

/** Host and Origin checks, exported for tests. */
export function allowedHosts(port: number): Set<string> {
  return new Set([`127.0.0.1:${port}`, `localhost:${port}`])
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body)
  res.writeHead(status, {
    ...SECURITY_HEADERS,
    'Content-Type': 'application/json; charset=utf-8',
    'Cache-Control': 'no-store',
    'Content-Length': Buffer.byteLength(text),
  })
  res.end(text)
}

function refuse(
  res: ServerResponse,
  status: 400 | 401 | 403 | 404 | 405 | 413 | 415,
  code: string,
  message: string,
): void {
  sendJson(res, status, { ok: false, error: { code, message } })
}

async function readBody(req: IncomingMessage, limit: number): Promise<Buffer | 'too-large'> {
  const declared = Number(req.headers['content-length'] ?? '0')
  if (declared > limit) return 'too-large'
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length
    if (size > limit) return 'too-large'
    chunks.push(chunk)
  }
  return Buffer.concat(chunks)
}

export async function startWebHost(options: WebHostOptions): Promise<WebHost> {
  const token = options.token ?? randomBytes(32).toString('base64url')
  let hosts = new Set<string>()
  let origins = new Set<string>()
  const rendererRoot = normalize(options.rendererDir + sep)

  async function serveStatic(req: IncomingMessage, res: ServerResponse, pathname: string): Promise<void> {
    if (req.method !== 'GET' && req.method !== 'HEAD')
      return refuse(res, 405, 'method_not_allowed', 'Only GET is served here.')
    const relative = pathname === '/' ? 'index.html' : decodeURIComponent(pathname).replace(/^\/+/, '')
    const file = normalize(join(rendererRoot, relative))
    if (!file.startsWith(rendererRoot) || relative.includes('\0'))
      return refuse(res, 404, 'not_found', 'Not found.')
    const info = await stat(file).catch(() => null)
    if (!info?.isFile()) return refuse(res, 404, 'not_found', 'Not found.')
    const isHtml = extname(file) === '.html'
    res.writeHead(200, {
      ...SECURITY_HEADERS,
      'Content-Type': CONTENT_TYPES[extname(file)] ?? 'application/octet-stream',
      'Content-Length': info.size,
      'Cache-Control': isHtml ? 'no-store' : 'public, max-age=3600',
      ...(isHtml ? { 'Content-Security-Policy': RENDERER_CSP } : {}),
    })
    if (req.method === 'HEAD') return void res.end()
    createReadStream(file).pipe(res)
  }

  async function serveCall(req: IncomingMessage, res: ServerResponse, channel: string): Promise<void> {
    if (req.method !== 'POST') return refuse(res, 405, 'method_not_allowed', 'Calls are POST requests.')
    const auth = req.headers.authorization ?? ''
    const given = auth.startsWith('Bearer ') ? auth.slice('Bearer '.length) : ''
    if (!given || !sameSecret(given, token)) {
      return refuse(
        res,
        401,
        'unauthorized',
        'Missing or wrong session token: open the URL the web host printed.',
      )
    }
    // A JSON content type cannot be sent cross-site without a CORS preflight, which we never answer.
    if (!(req.headers['content-type'] ?? '').startsWith('application/json')) {
      return refuse(res, 415, 'unsupported_media_type', 'Calls must be sent as application/json.')
    }
    if (!isChannel(channel))
      return refuse(res, 404, 'unknown_call', `Unknown call "${channel.slice(0, 80)}".`)
    const body = await readBody(req, MAX_BODY_BYTES)
    if (body === 'too-large') {
      res.setHeader('Connection', 'close')
      return refuse(res, 413, 'too_large', `A call's body may be at most ${MAX_BODY_BYTES} bytes.`)
    }
    let args: unknown
    try {
      const parsed: unknown = JSON.parse(body.toString('utf8') || '{}')
      args = typeof parsed === 'object' && parsed !== null && 'args' in parsed ? parsed.args : undefined
    } catch {
      return refuse(res, 400, 'invalid_argument', 'The call body is not valid JSON.')
    }
    const controller = new AbortController()
    res.on('close', () => {
      if (!res.writableFinished) controller.abort()
    })
    const outcome = await dispatch(
      options.handlers,
      channel,
      args,
      { host: 'web', signal: controller.signal },
      options.log,
    )
    sendJson(res, 200, outcome)
  }

  async function serveDownload(req: IncomingMessage, res: ServerResponse, id: string): Promise<void> {
    if (req.method !== 'GET') return refuse(res, 405, 'method_not_allowed', 'Downloads are GET requests.')
    const offer = options.downloads?.take(id) ?? null
    if (!offer) return refuse(res, 404, 'not_found', 'This download has expired or was already taken.')
    const info = await stat(offer.path)
    res.writeHead(200, {
      ...SECURITY_HEADERS,
      'Content-Type': CONTENT_TYPES[extname(offer.path)] ?? 'application/octet-stream',
      'Content-Length': info.size,
      'Cache-Control': 'no-store',
      'Content-Disposition': `attachment; filename="download${extname(offer.fileName)}"; filename*=UTF-8''${encodeURIComponent(offer.fileName)}`,
    })
    createReadStream(offer.path).pipe(res)
  }

  const server = createServer((req, res) => {
    const host = req.headers.host ?? ''
    if (!hosts.has(host)) return refuse(res, 403, 'forbidden_host', 'This host name is not allowed.')
    const origin = req.headers.origin
    if (origin !== undefined && !origins.has(origin))
      return refuse(res, 403, 'forbidden_origin', 'Calls from other sites are refused.')
    const pathname = new URL(req.url ?? '/', 'http://placeholder').pathname
    const work = pathname.startsWith(API_PREFIX)
      ? serveCall(req, res, pathname.slice(API_PREFIX.length))
      : pathname.startsWith(DOWNLOAD_PREFIX)
        ? serveDownload(req, res, pathname.slice(DOWNLOAD_PREFIX.length))
        : serveStatic(req, res, pathname)
    work.catch(() => {
      options.log?.error('web host request failed')
      if (!res.headersSent)
        sendJson(res, 500, { ok: false, error: { code: 'internal', message: 'Internal error.' } })
      else res.destroy()
    })
  })
  server.requestTimeout = 120_000

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port, '127.0.0.1', () => resolve())
  })
  const port = (server.address() as AddressInfo).port
  hosts = allowedHosts(port)
  origins = new Set([...hosts].map((h) => `http://${h}`))
  const origin = `http://127.0.0.1:${port}`
  return {
    port,
    origin,
    launchUrl: `${origin}/?token=${token}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
