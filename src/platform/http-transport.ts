/**
 * DesktopApi over HTTP, for the web host. The launch token arrives once as `?token=` in the address (or
 * as a one-time `?launch=` code exchanged for it); it is moved to sessionStorage (per tab, gone when the
 * tab closes) and removed from the address bar so it is not copied with the URL. The browser's history
 * still records the address as first opened: see docs/architecture.md, "Web host and safety".
 */
import { BINARY_CALL_TYPE, encodeBinaryCall } from '../../electron/shared/binary-call'
import type { Transport } from '../../electron/shared/channels'
import type { CallOutcome } from '../../electron/shared/errors'

const TOKEN_KEY = 'closebook.webHostToken'

function removeParam(location: Location, history: History, name: string): string | null {
  const params = new URLSearchParams(location.search)
  const value = params.get(name)
  if (value === null) return null
  params.delete(name)
  const search = params.toString()
  history.replaceState(history.state, '', `${location.pathname}${search ? `?${search}` : ''}${location.hash}`)
  return value
}

export function takeLaunchToken(location: Location, storage: Storage, history: History): string | null {
  const fromUrl = removeParam(location, history, 'token')
  if (fromUrl) {
    storage.setItem(TOKEN_KEY, fromUrl)
    return fromUrl
  }
  return storage.getItem(TOKEN_KEY)
}

/**
 * The tab's session token. A browser the web host opened itself arrives with a one-time `?launch=` code
 * (so the opener's command line and the history hold nothing reusable): it is exchanged once for the
 * token. Otherwise the printed URL's `?token=`, or the token this tab already has.
 */
export async function sessionToken(
  location: Location,
  storage: Storage,
  history: History,
  fetchImpl: typeof fetch = fetch,
): Promise<string | null> {
  const code = removeParam(location, history, 'launch')
  if (code) {
    try {
      const response = await fetchImpl('/api/session', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ code }),
      })
      const body = (await response.json().catch(() => null)) as { token?: unknown } | null
      if (response.ok && typeof body?.token === 'string') {
        storage.setItem(TOKEN_KEY, body.token)
        return body.token
      }
    } catch {
      // unreachable host: fall through to what the tab may already have
    }
  }
  return takeLaunchToken(location, storage, history)
}

const UNREACHABLE: CallOutcome = {
  ok: false,
  error: { code: 'network', message: 'The Closebook web host is not reachable. Is it still running?' },
}

/**
 * Calls go as `POST /api/call/<channel>`. The host answers within a quarter of a second: with the outcome,
 * or with `202 { pending: id }` for a call still running (typically waiting for a rate limit). Outcomes of
 * pending calls are collected by one `POST /api/wait` for all of them at once, which the host holds for
 * at most two seconds. So this tab never holds more than one of Chromium's six connections per host for
 * long, and Cancel, the queue display and other tabs always get through (see electron/web/web-host.ts).
 */
export function createHttpTransport(
  tokenOrPromise: string | null | Promise<string | null>,
  fetchImpl: typeof fetch = fetch,
): Transport {
  const tokenReady = Promise.resolve(tokenOrPromise)
  let token: string | null = null
  const pending = new Map<string, (outcome: CallOutcome) => void>()
  let collecting = false

  const post = (path: string, body: unknown): Promise<Response> =>
    fetchImpl(path, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    })
  /** A call whose arguments hold typed arrays or long strings goes as a binary body: no JSON of them. */
  const postCall = (channel: string, args: unknown): Promise<Response> => {
    const binary = encodeBinaryCall(args)
    if (!binary) return post(`/api/call/${channel}`, { args })
    return fetchImpl(`/api/call/${channel}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': BINARY_CALL_TYPE },
      body: binary,
    })
  }

  const settleAll = (outcome: CallOutcome): void => {
    for (const [id, settle] of pending) {
      pending.delete(id)
      settle(outcome)
    }
  }

  async function collect(): Promise<void> {
    if (collecting) return
    collecting = true
    try {
      while (pending.size > 0) {
        let answer: { outcomes?: Record<string, CallOutcome>; unknown?: string[] } | null
        try {
          const response = await post('/api/wait', { ids: [...pending.keys()] })
          answer = response.ok ? ((await response.json()) as typeof answer) : null
        } catch {
          answer = null
        }
        if (!answer) {
          settleAll(UNREACHABLE)
          return
        }
        for (const [id, outcome] of Object.entries(answer.outcomes ?? {})) {
          pending.get(id)?.(outcome)
          pending.delete(id)
        }
        for (const id of answer.unknown ?? []) {
          // The host no longer knows the call: it was restarted, or gave the call up as abandoned.
          pending.get(id)?.(UNREACHABLE)
          pending.delete(id)
        }
      }
    } finally {
      collecting = false
    }
  }

  return async (channel, args) => {
    token = await tokenReady
    if (!token) {
      return {
        ok: false,
        error: { code: 'unauthorized', message: 'No session token: open the URL the web host printed.' },
      }
    }
    let response: Response
    try {
      response = await postCall(channel, args)
    } catch {
      return UNREACHABLE
    }
    const body = (await response.json().catch(() => null)) as CallOutcome | { pending?: unknown } | null
    if (response.status === 202 && body && 'pending' in body && typeof body.pending === 'string') {
      const id = body.pending
      const outcome = new Promise<CallOutcome>((resolve) => pending.set(id, resolve))
      void collect()
      return outcome
    }
    if (body && typeof body === 'object' && 'ok' in body) return body
    return {
      ok: false,
      error: { code: 'internal', message: `The web host answered HTTP ${response.status}.` },
    }
  }
}
