/**
 * The web host's `POST /api/call/<channel>` as a bench's own process answers it, with the web host's own
 * steps: the body taken as the web host takes it (`callArgsOf`: JSON or the binary form, its nesting
 * bounded), then main's dispatcher (the contract's check, the handler, the result's check) over
 * `handlers`, its outcome back as JSON. Authorization and the 202 hand-off of a long call are left out (no
 * bench call is held). For runInChromium's `handle`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { dispatch } from '../../../electron/services/dispatcher'
import type { Handlers } from '../../../electron/services/handlers/types'
import type { CallOutcome } from '../../../electron/shared/errors'
import { callArgsOf } from '../../../electron/web/call-body'
import { API_PREFIX } from '../../../electron/web/web-host'

export function webHostCalls(handlers: Handlers): (req: IncomingMessage, res: ServerResponse) => boolean {
  return (req, res) => {
    const path = req.url ?? ''
    if (req.method !== 'POST' || !path.startsWith(API_PREFIX)) return false
    const channel = decodeURIComponent(path.slice(API_PREFIX.length))
    const body: Buffer[] = []
    req.on('data', (b: Buffer) => body.push(b))
    req.on('end', () => {
      const answer = async (): Promise<CallOutcome> => {
        const call = callArgsOf(req.headers['content-type'], Buffer.concat(body))
        if (!call.ok) throw new Error(call.message)
        return dispatch(handlers, channel, call.args, { host: 'web', signal: new AbortController().signal })
      }
      void answer()
        .catch((e: unknown) => ({
          ok: false as const,
          error: { code: 'internal' as const, message: e instanceof Error ? e.message : String(e) },
        }))
        .then((outcome) =>
          res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(outcome)),
        )
    })
    return true
  }
}
