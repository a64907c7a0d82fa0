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

export function createHttpTransport(token: string | null, fetchImpl: typeof fetch = fetch): Transport {
  return async (channel, args) => {
    if (!token) {
      return {
        ok: false,
        error: { code: 'unauthorized', message: 'No session token: open the URL the web host printed.' },
      }
    }
    let response: Response
    try {
      response = await fetchImpl(`/api/call/${channel}`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ args }),
      })
    } catch {
      return {
        ok: false,
        error: { code: 'network', message: 'The Closebook web host is not reachable. Is it still running?' },
      }
    }
    const body = (await response.json().catch(() => null)) as CallOutcome | null
    if (body && typeof body === 'object' && 'ok' in body) return body
    return {
      ok: false,
      error: { code: 'internal', message: `The web host answered HTTP ${response.status}.` },
    }
  }
}
