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
import type { CallOutcome } from '../shared/errors'
import { CALL_TYPES_MESSAGE, callArgsOf, isCallContentType } from './call-body'
import type { DownloadRegistry } from './downloads'

export const API_PREFIX = '/api/call/'
/** Exchanges a one-time launch code for the session token. */
export const SESSION_PATH = '/api/session'
/** An unused launch code expires after this long. */
export const LAUNCH_CODE_MS = 5 * 60_000
/** Collects the outcomes of calls answered "pending" (see `CallBoard`). */
export const WAIT_PATH = '/api/wait'
export const DOWNLOAD_PREFIX = '/download/'
export const MAX_BODY_BYTES = 16 * 1024 * 1024
/** A call's request is answered within this long: with its outcome, or with "pending". */
export const CALL_HOLD_MS = 250
/** A wait is answered within this long, with whatever settled (possibly nothing). */
export const WAIT_HOLD_MS = 2_000
/** A pending call nobody waited for in this long is abandoned (its tab closed): aborted and dropped. */
export const ABANDON_MS = 20_000
/** How many pending calls one wait may name. */
export const MAX_WAIT_IDS = 512

export interface WebHostOptions {
  /** 0 picks a free port. */
  port: number
  /** Tests shorten the holds; production uses CALL_HOLD_MS, WAIT_HOLD_MS and ABANDON_MS. */
  timing?: { callHoldMs?: number; waitHoldMs?: number; abandonMs?: number }
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
  /**
   * A URL for the browser the host opens itself: it carries a one-time launch code (`?launch=`), which
   * the page exchanges for the token. The command line of `xdg-open`/`open`/`start` (visible to other
   * local users) and the browser's history then hold only a code that is already spent.
   */
  oneTimeUrl(): string
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
  // Encoded once: its length is the bytes written (a page of items is ~100 KB).
  const bytes = Buffer.from(JSON.stringify(body), 'utf8')
  res.writeHead(status, {
    ...SECURITY_HEADERS,
    'Content-Type': 'application/json; charset=utf-8',
    'Cache-Control': 'no-store',
    'Content-Length': bytes.length,
  })
  res.end(bytes)
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

/**
 * Calls that outlived their request. Chromium opens at most six connections per host (for every tab of
 * the profile together), so a call held open while it waits for a rate limit would, six at a time, leave
 * nothing for Cancel, the queue display or a second tab's page load. So no request is held for long:
 * a call not done within CALL_HOLD_MS is answered `202 { pending: id }` and its outcome kept here; the
 * tab collects outcomes with one wait request for all its pending calls, itself held at most
 * WAIT_HOLD_MS. A tab thus holds at most one connection for long, and every other request is answered
 * within a quarter of a second, whatever the payment service does.
 */
export class CallBoard {
  private readonly calls = new Map<
    string,
    { outcome: CallOutcome | undefined; controller: AbortController; seenAt: number }
  >()
  private readonly waiters = new Set<() => void>()
  private readonly sweeper: NodeJS.Timeout

  constructor(
    private readonly abandonMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.sweeper = setInterval(() => this.sweep(), Math.max(50, Math.floor(abandonMs / 4)))
    this.sweeper.unref()
  }

  get size(): number {
    return this.calls.size
  }

  /** Takes over a running call; its outcome waits here until collected. */
  add(work: Promise<CallOutcome>, controller: AbortController): string {
    const id = randomBytes(12).toString('base64url')
    const entry = { outcome: undefined as CallOutcome | undefined, controller, seenAt: this.now() }
    this.calls.set(id, entry)
    void work.then((outcome) => {
      entry.outcome = outcome
      for (const wake of [...this.waiters]) wake()
    })
    return id
  }

  /** The settled outcomes among `ids` (taken: each is delivered once) and the ids we do not know. */
  collect(ids: readonly string[]): { outcomes: Record<string, CallOutcome>; unknown: string[] } {
    const outcomes: Record<string, CallOutcome> = {}
    const unknown: string[] = []
    const at = this.now()
    for (const id of ids) {
      const entry = this.calls.get(id)
      if (!entry) unknown.push(id)
      else if (entry.outcome) {
        outcomes[id] = entry.outcome
        this.calls.delete(id)
      } else entry.seenAt = at
    }
    return { outcomes, unknown }
  }

  /** Resolves when any call settles, after `holdMs`, or when `signal` aborts, whichever is first. */
  async wait(
    ids: readonly string[],
    holdMs: number,
    signal: AbortSignal,
  ): Promise<ReturnType<CallBoard['collect']>> {
    const first = this.collect(ids)
    if (Object.keys(first.outcomes).length > 0 || first.unknown.length === ids.length || signal.aborted)
      return first
    await new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer)
        this.waiters.delete(wake)
        signal.removeEventListener('abort', done)
        resolve()
      }
      // Any call settling ends the wait, even one this wait does not name: it may be a call its tab
      // began after sending this wait, whose outcome would otherwise sit here until the hold ran out.
      // The tab asks again at once, naming all its pending calls.
      const wake = (): void => done()
      const timer = setTimeout(done, holdMs)
      this.waiters.add(wake)
      signal.addEventListener('abort', done, { once: true })
    })
    return this.collect(ids)
  }

  /** Aborts and drops calls (and uncollected outcomes) nobody asked about in `abandonMs`. */
  sweep(): void {
    const limit = this.now() - this.abandonMs
    for (const [id, entry] of this.calls)
      if (entry.seenAt < limit) {
        entry.controller.abort()
        this.calls.delete(id)
      }
  }

  close(): void {
    clearInterval(this.sweeper)
    for (const entry of this.calls.values()) entry.controller.abort()
    this.calls.clear()
    for (const wake of [...this.waiters]) wake()
  }
}

function settledWithin<T>(work: Promise<T>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms)
    void work.then(() => {
      clearTimeout(timer)
      resolve(true)
    })
  })
}

export async function startWebHost(options: WebHostOptions): Promise<WebHost> {
  const token = options.token ?? randomBytes(32).toString('base64url')
  let hosts = new Set<string>()
  let origins = new Set<string>()
  const rendererRoot = normalize(options.rendererDir + sep)
  const callHoldMs = options.timing?.callHoldMs ?? CALL_HOLD_MS
  const waitHoldMs = options.timing?.waitHoldMs ?? WAIT_HOLD_MS
  const board = new CallBoard(options.timing?.abandonMs ?? ABANDON_MS)

  const launchCodes = new Map<string, number>()

  async function serveSession(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== 'POST') return refuse(res, 405, 'method_not_allowed', 'Sessions are POST requests.')
    if (!(req.headers['content-type'] ?? '').startsWith('application/json')) {
      return refuse(res, 415, 'unsupported_media_type', 'Send the launch code as application/json.')
    }
    const body = await readBody(req, 1024)
    let code = ''
    try {
      const parsed: unknown = body === 'too-large' ? null : JSON.parse(body.toString('utf8'))
      if (
        typeof parsed === 'object' &&
        parsed !== null &&
        'code' in parsed &&
        typeof parsed.code === 'string'
      )
        code = parsed.code
    } catch {
      code = ''
    }
    const expiresAt = launchCodes.get(code)
    launchCodes.delete(code) // one use, whatever happens
    if (expiresAt === undefined || expiresAt < Date.now())
      return refuse(
        res,
        401,
        'unauthorized',
        'This launch link was already used or has expired: open the URL the web host printed.',
      )
    sendJson(res, 200, { token })
  }

  function authorized(req: IncomingMessage): boolean {
    const auth = req.headers.authorization ?? ''
    const given = auth.startsWith('Bearer ') ? auth.slice('Bearer '.length) : ''
    return given !== '' && sameSecret(given, token)
  }

  function refuseUnauthorized(res: ServerResponse): void {
    refuse(res, 401, 'unauthorized', 'Missing or wrong session token: open the URL the web host printed.')
  }

  async function serveStatic(req: IncomingMessage, res: ServerResponse, pathname: string): Promise<void> {
    if (req.method !== 'GET' && req.method !== 'HEAD')
      return refuse(res, 405, 'method_not_allowed', 'Only GET is served here.')
    let decoded: string
    try {
      decoded = decodeURIComponent(pathname)
    } catch {
      // `GET /%` and friends: a malformed escape is the request's fault, not ours.
      return refuse(res, 400, 'bad_request', 'The path has a malformed percent-escape.')
    }
    const relative = pathname === '/' ? 'index.html' : decoded.replace(/^\/+/, '')
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
    if (!authorized(req)) return refuseUnauthorized(res)
    // Neither call content type can be sent cross-site without a CORS preflight, which we never answer.
    if (!isCallContentType(req.headers['content-type']))
      return refuse(res, 415, 'unsupported_media_type', CALL_TYPES_MESSAGE)
    if (!isChannel(channel))
      return refuse(res, 404, 'unknown_call', `Unknown call "${channel.slice(0, 80)}".`)
    const body = await readBody(req, MAX_BODY_BYTES)
    if (body === 'too-large') {
      res.setHeader('Connection', 'close')
      return refuse(res, 413, 'too_large', `A call's body may be at most ${MAX_BODY_BYTES} bytes.`)
    }
    const call = callArgsOf(req.headers['content-type'], body)
    if (!call.ok) return refuse(res, 400, 'invalid_argument', call.message)
    const args = call.args
    const controller = new AbortController()
    const work = dispatch(
      options.handlers,
      channel,
      args,
      { host: 'web', signal: controller.signal },
      options.log,
    )
    const onClose = (): void => {
      if (!res.writableFinished) controller.abort() // the tab went away before we could answer
    }
    res.on('close', onClose)
    if (await settledWithin(work, callHoldMs)) return sendJson(res, 200, await work)
    res.off('close', onClose)
    if (res.destroyed) return controller.abort()
    sendJson(res, 202, { pending: board.add(work, controller) })
  }

  async function serveWait(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== 'POST') return refuse(res, 405, 'method_not_allowed', 'Waits are POST requests.')
    if (!authorized(req)) return refuseUnauthorized(res)
    if (!(req.headers['content-type'] ?? '').startsWith('application/json')) {
      return refuse(res, 415, 'unsupported_media_type', 'Waits must be sent as application/json.')
    }
    const body = await readBody(req, 64 * 1024)
    if (body === 'too-large') return refuse(res, 413, 'too_large', 'A wait names too many calls.')
    let ids: string[] | undefined
    try {
      const parsed: unknown = JSON.parse(body.toString('utf8'))
      const given = typeof parsed === 'object' && parsed !== null && 'ids' in parsed ? parsed.ids : undefined
      if (
        Array.isArray(given) &&
        given.length <= MAX_WAIT_IDS &&
        given.every((id): id is string => typeof id === 'string' && id.length <= 64)
      )
        ids = given
    } catch {
      ids = undefined
    }
    if (!ids)
      return refuse(res, 400, 'invalid_argument', `A wait is { ids: [up to ${MAX_WAIT_IDS} call ids] }.`)
    const gone = new AbortController()
    res.on('close', () => gone.abort())
    const collected = await board.wait(ids, waitHoldMs, gone.signal)
    if (res.destroyed) return // the outcomes it took are lost with the tab; nobody is left to want them
    sendJson(res, 200, collected)
  }

  async function serveDownload(req: IncomingMessage, res: ServerResponse, id: string): Promise<void> {
    if (req.method !== 'GET') return refuse(res, 405, 'method_not_allowed', 'Downloads are GET requests.')
    await options.downloads?.sweep() // files of offers that expired untaken go now
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
    // One use: whether the browser got it all or the attempt failed, the host's copy goes.
    res.once('close', () => void options.downloads?.delivered(offer))
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
      : pathname === WAIT_PATH
        ? serveWait(req, res)
        : pathname === SESSION_PATH
          ? serveSession(req, res)
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
    oneTimeUrl: () => {
      const code = randomBytes(24).toString('base64url')
      launchCodes.set(code, Date.now() + LAUNCH_CODE_MS)
      return `${origin}/?launch=${code}`
    },
    close: () =>
      new Promise<void>((resolve) => {
        board.close()
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
