/**
 * DesktopApi over HTTP, for the web host. The launch token arrives once as `?token=` in the address; it
 * is moved to sessionStorage (per tab, gone when the tab closes) and removed from the address bar so it
 * does not linger in history or get copied with the URL.
 */
import type { Transport } from '../../electron/shared/channels'
import type { CallOutcome } from '../../electron/shared/errors'

const TOKEN_KEY = 'closebook.webHostToken'

export function takeLaunchToken(location: Location, storage: Storage, history: History): string | null {
  const params = new URLSearchParams(location.search)
  const fromUrl = params.get('token')
  if (fromUrl) {
    storage.setItem(TOKEN_KEY, fromUrl)
    params.delete('token')
    const search = params.toString()
    history.replaceState(
      history.state,
      '',
      `${location.pathname}${search ? `?${search}` : ''}${location.hash}`,
    )
    return fromUrl
  }
  return storage.getItem(TOKEN_KEY)
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
export function createHttpTransport(token: string | null, fetchImpl: typeof fetch = fetch): Transport {
  const pending = new Map<string, (outcome: CallOutcome) => void>()
  let collecting = false

  const post = (path: string, body: unknown): Promise<Response> =>
    fetchImpl(path, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    })

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
    if (!token) {
      return {
        ok: false,
        error: { code: 'unauthorized', message: 'No session token: open the URL the web host printed.' },
      }
    }
    let response: Response
    try {
      response = await post(`/api/call/${channel}`, { args })
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
