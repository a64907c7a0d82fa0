import { describe, expect, it } from 'vitest'
import { createHttpTransport, sessionToken, takeLaunchToken } from '../../../../src/platform/http-transport'

function fakeStorage(): Storage {
  const map = new Map<string, string>()
  return {
    getItem: (k: string) => map.get(k) ?? null,
    setItem: (k: string, v: string) => void map.set(k, v),
    removeItem: (k: string) => void map.delete(k),
    clear: () => map.clear(),
    key: () => null,
    get length() {
      return map.size
    },
  }
}

describe('web host transport', () => {
  it('moves the launch token from the address into session storage and out of the address bar', () => {
    const storage = fakeStorage()
    const replaced: string[] = []
    const history = {
      state: null,
      replaceState: (_s: unknown, _t: string, url: string) => void replaced.push(url),
    } as unknown as History
    const location = { search: '?token=abc123&lang=ja', pathname: '/', hash: '#/ledger' } as Location
    expect(takeLaunchToken(location, storage, history)).toBe('abc123')
    expect(replaced).toEqual(['/?lang=ja#/ledger'])
    // A reload has no token in the address any more: the tab's storage still has it.
    expect(takeLaunchToken({ search: '', pathname: '/', hash: '' } as Location, storage, history)).toBe(
      'abc123',
    )
  })

  it('sends the token as a bearer header with a JSON body, never in the URL', async () => {
    const seen: { url: string; init: RequestInit }[] = []
    const fetchImpl = ((url: string, init: RequestInit) => {
      seen.push({ url, init })
      return Promise.resolve(new Response(JSON.stringify({ ok: true, value: 1 }), { status: 200 }))
    }) as typeof fetch
    const outcome = await createHttpTransport('tok', fetchImpl)('app:info', {})
    expect(outcome).toEqual({ ok: true, value: 1 })
    expect(seen[0]?.url).toBe('/api/call/app:info')
    expect(seen[0]?.url).not.toContain('tok')
    expect(seen[0]?.init.headers).toMatchObject({
      Authorization: 'Bearer tok',
      'Content-Type': 'application/json',
    })
  })

  it('reports an unreachable host and a refused token as typed errors', async () => {
    const down = (() => Promise.reject(new TypeError('fetch failed'))) as typeof fetch
    expect(await createHttpTransport('tok', down)('app:info', {})).toMatchObject({
      ok: false,
      error: { code: 'network' },
    })
    expect(await createHttpTransport(null, down)('app:info', {})).toMatchObject({
      ok: false,
      error: { code: 'unauthorized' },
    })
  })

  it('exchanges a one-time launch code for the token, and removes the code from the address', async () => {
    const storage = fakeStorage()
    const replaced: string[] = []
    const history = {
      state: null,
      replaceState: (_s: unknown, _t: string, url: string) => void replaced.push(url),
    } as unknown as History
    const asked: string[] = []
    const fetchImpl = ((url: string, init: RequestInit) => {
      asked.push(`${url} ${typeof init.body === 'string' ? init.body : ''}`)
      return Promise.resolve(new Response(JSON.stringify({ token: 'tok-1' }), { status: 200 }))
    }) as typeof fetch
    const location = { search: '?launch=code-1', pathname: '/', hash: '' } as Location
    expect(await sessionToken(location, storage, history, fetchImpl)).toBe('tok-1')
    expect(asked).toEqual(['/api/session {"code":"code-1"}'])
    expect(replaced).toEqual(['/'])
    expect(storage.getItem('closebook.webHostToken')).toBe('tok-1')
    // A spent code (history, a second tab): the tab keeps what it has, or has nothing.
    const refused = (() =>
      Promise.resolve(new Response('{"ok":false}', { status: 401 }))) as unknown as typeof fetch
    expect(await sessionToken(location, fakeStorage(), history, refused)).toBeNull()
  })
})
