/**
 * A hostile server for leak tests: a proxy in front of the sandbox that echoes the request's
 * Authorization header into every item of a successful page (as metadata, percent-encoded in a URL, and
 * base64-encoded), the way a misconfigured gateway or a debugging middleware might, and the secret and
 * app token in lower case, upper case and spaced out into the names a connection test shows (merchant and
 * store) and into error bodies.
 */
import { Buffer } from 'node:buffer'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface EchoProxy {
  url: string
  /** Pages whose items were given the echo. */
  echoedPages: number
  /** The next `n` requests are refused with a 400 whose error body echoes the credentials. */
  failNext(n: number): void
  close(): Promise<void>
}

const spaced = (text: string): string => [...text].join(' ')

/** The secret and app token of an Authorization header, each in the disguises a leak scan must see. */
export function disguisedCredentials(auth: string): { secret: string[]; appToken: string[] } {
  const [secret = '', ...token] = auth.replace(/^Bearer /, '').split('.')
  const appToken = token.join('.')
  return {
    secret: [secret.toLowerCase(), spaced(secret.toUpperCase()), spaced(secret)],
    appToken: [appToken.toLowerCase(), spaced(appToken)],
  }
}

export async function startEchoProxy(target: string): Promise<EchoProxy> {
  let failing = 0
  const proxy: EchoProxy = {
    url: '',
    echoedPages: 0,
    failNext: (n) => void (failing = n),
    close: () => Promise.resolve(),
  }
  const server = createServer((req, res) => {
    const auth = req.headers.authorization ?? ''
    if (failing > 0) {
      failing--
      // An error body in the SDK's shape whose code and reasons are the credentials.
      const secret = auth.replace(/^Bearer /, '').split('.')[0] ?? ''
      const disguised = disguisedCredentials(auth)
      const body = JSON.stringify({
        status: 400,
        code: secret,
        errors: [
          { field: 'authorization', reason: auth },
          { field: secret, reason: encodeURIComponent(auth) },
          ...disguised.secret.map((field) => ({ field, reason: 'unknown field' })),
          ...disguised.appToken.map((reason) => ({ field: 'app_token', reason })),
        ],
      })
      res.writeHead(400, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) })
      res.end(body)
      return
    }
    const headers: Record<string, string> = {}
    for (const [k, v] of Object.entries(req.headers))
      if (typeof v === 'string' && k !== 'host' && k !== 'connection') headers[k] = v
    fetch(new URL(req.url ?? '/', target), { headers, redirect: 'manual' })
      .then(async (upstream) => {
        let body = Buffer.from(await upstream.arrayBuffer())
        if (upstream.status === 200) {
          const page = JSON.parse(body.toString('utf8')) as { items?: Record<string, unknown>[] }
          const disguised = disguisedCredentials(auth)
          for (const item of page.items ?? []) {
            // What a connection test shows: the merchant's and the store's names.
            if (typeof item['merchant_name'] === 'string')
              item['merchant_name'] = `${item['merchant_name']} ${disguised.secret[0]}`
            if (typeof item['store_name'] === 'string')
              item['store_name'] = `${item['store_name']} ${disguised.secret[1]} ${disguised.appToken[1]}`
            item['metadata'] = {
              ...(item['metadata'] as object),
              echo_authorization: auth,
              echo_callback: `https://merchant.example/cb?auth=${encodeURIComponent(auth)}`,
              echo_basic: Buffer.from(auth).toString('base64'),
              echo_lower: disguised.secret[0],
              echo_spaced: `${disguised.secret[2]} / ${disguised.appToken[0]}`,
            }
            if (typeof item['description'] === 'string' || item['description'] === undefined)
              item['description'] = `debug ${auth}`
          }
          proxy.echoedPages++
          body = Buffer.from(JSON.stringify(page))
        }
        const out: Record<string, string> = {}
        upstream.headers.forEach((v, k) => {
          if (k !== 'content-length' && k !== 'content-encoding' && k !== 'transfer-encoding') out[k] = v
        })
        res.writeHead(upstream.status, { ...out, 'content-length': String(body.length) })
        res.end(body)
      })
      .catch(() => res.destroy())
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  proxy.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    })
  return proxy
}
