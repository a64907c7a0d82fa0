import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import type { Session, WebContents } from 'electron'
import {
  isAppUrl,
  lockDownSession,
  lockDownWebContents,
  secureWebPreferences,
  type AppOrigin,
} from '../../../../electron/main/security'
import { createOpenExternal } from '../../../../electron/main/external-links'
import { EXTERNAL_LINKS } from '../../../../electron/services/handlers/app-handlers'
import { RENDERER_CSP } from '../../../../electron/shared/security'

const appOrigin: AppOrigin = { kind: 'file', indexPath: '/app/out/renderer/index.html' }

function directives(csp: string): Map<string, string> {
  return new Map(
    csp
      .split(';')
      .map((d) => d.trim())
      .filter(Boolean)
      .map((d) => [d.split(/\s+/)[0] ?? '', d]),
  )
}

describe('Electron hardening', () => {
  it('creates windows isolated, sandboxed and without Node', () => {
    expect(secureWebPreferences('/app/preload.js')).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webviewTag: false,
      webSecurity: true,
      preload: '/app/preload.js',
    })
  })

  it('blocks navigation away from the app, new windows and webviews', () => {
    const listeners = new Map<
      string,
      (event: { preventDefault(): void; defaultPrevented?: boolean }, url?: string) => void
    >()
    let openHandler: (() => { action: string }) | undefined
    const contents = {
      on: (name: string, fn: (event: { preventDefault(): void }, url?: string) => void) =>
        void listeners.set(name, fn),
      setWindowOpenHandler: (fn: () => { action: string }) => void (openHandler = fn),
    } as unknown as WebContents
    lockDownWebContents(contents, appOrigin)

    const navigate = (url: string) => {
      let prevented = false
      listeners.get('will-navigate')?.({ preventDefault: () => void (prevented = true) }, url)
      return prevented
    }
    expect(navigate('https://evil.example/')).toBe(true)
    expect(navigate('file:///etc/passwd')).toBe(true)
    expect(navigate('file:///app/out/renderer/index.html#/ledger')).toBe(false)
    expect(openHandler?.()).toEqual({ action: 'deny' })
    let webviewPrevented = false
    listeners.get('will-attach-webview')?.({ preventDefault: () => void (webviewPrevented = true) })
    expect(webviewPrevented).toBe(true)
  })

  it('denies every permission and sets the CSP on every response', () => {
    let permissionAnswer: boolean | undefined
    let checkHandler: (() => boolean) | undefined
    let headersHandler:
      | ((
          d: { responseHeaders: Record<string, string[]> },
          cb: (r: { responseHeaders: Record<string, string[]> }) => void,
        ) => void)
      | undefined
    const session = {
      setPermissionRequestHandler: (fn: (c: unknown, p: string, cb: (ok: boolean) => void) => void) =>
        fn(null, 'media', (ok) => (permissionAnswer = ok)),
      setPermissionCheckHandler: (fn: () => boolean) => void (checkHandler = fn),
      webRequest: { onHeadersReceived: (fn: typeof headersHandler) => void (headersHandler = fn) },
    } as unknown as Session
    lockDownSession(session)
    expect(permissionAnswer).toBe(false)
    expect(checkHandler?.()).toBe(false)
    let headers: Record<string, string[]> = {}
    headersHandler?.({ responseHeaders: { 'X-Other': ['1'] } }, (r) => (headers = r.responseHeaders))
    expect(headers['Content-Security-Policy']).toEqual([RENDERER_CSP])
    expect(headers['X-Other']).toEqual(['1'])
  })

  it("has a CSP without 'unsafe-eval' or inline scripts, mirrored in index.html", () => {
    const csp = directives(RENDERER_CSP)
    expect(csp.get('script-src')).toBe("script-src 'self'")
    expect(csp.get('default-src')).toBe("default-src 'none'")
    expect(RENDERER_CSP).not.toContain('unsafe')
    const html = readFileSync(new URL('../../../../src/index.html', import.meta.url), 'utf8')
    const meta = /http-equiv="Content-Security-Policy"\s+content="([^"]+)"/.exec(html)?.[1] ?? ''
    const metaDirectives = directives(meta)
    // A meta CSP cannot carry frame-ancestors; every other directive must be the same.
    for (const [name, value] of csp) {
      if (name !== 'frame-ancestors') expect(metaDirectives.get(name), name).toBe(value)
    }
  })

  it('opens only allow-listed https links', async () => {
    const opened: string[] = []
    const open = createOpenExternal({ openExternal: (url: string) => (opened.push(url), Promise.resolve()) })
    await open(EXTERNAL_LINKS.docs)
    await expect(open('https://evil.example/')).rejects.toThrow(/allow-list/)
    await expect(open('file:///etc/passwd')).rejects.toThrow(/allow-list/)
    expect(opened).toEqual([EXTERNAL_LINKS.docs])
  })

  describe('isAppUrl compares file URLs as paths of their platform', () => {
    it('accepts the packaged page on Windows, whatever the drive letter case or escapes', () => {
      const win: AppOrigin = {
        kind: 'file',
        indexPath: 'C:\\Program Files\\Closebook\\resources\\app.asar\\out\\renderer\\index.html',
        platform: 'win32',
      }
      const page = 'file:///C:/Program%20Files/Closebook/resources/app.asar/out/renderer/index.html'
      expect(isAppUrl(page, win)).toBe(true)
      expect(isAppUrl(`${page}#/ledger?x=1`, win)).toBe(true)
      expect(isAppUrl(page.replace('C:', 'c:'), win)).toBe(true)
      expect(isAppUrl('file:///C:/Program%20Files/Closebook/resources/other.html', win)).toBe(false)
      expect(
        isAppUrl('file:///D:/Program%20Files/Closebook/resources/app.asar/out/renderer/index.html', win),
      ).toBe(false)
      expect(isAppUrl('file://evil-share/C$/index.html', win)).toBe(false)
      expect(isAppUrl('https://evil.example/index.html', win)).toBe(false)
    })

    it('accepts the packaged page on macOS (spaces, non-ASCII) and refuses look-alikes', () => {
      const mac: AppOrigin = {
        kind: 'file',
        indexPath: '/Applications/Close Book ß.app/Contents/Resources/app.asar/out/renderer/index.html',
        platform: 'darwin',
      }
      const page =
        'file:///Applications/Close%20Book%20%C3%9F.app/Contents/Resources/app.asar/out/renderer/index.html'
      expect(isAppUrl(page, mac)).toBe(true)
      expect(isAppUrl(`${page}#/settings`, mac)).toBe(true)
      expect(isAppUrl(page.replace('Close%20Book', 'close%20book'), mac)).toBe(false)
      expect(isAppUrl(page.replace('/renderer/', '/renderer/..%2F'), mac)).toBe(false)
      expect(isAppUrl('file://evil-host' + page.slice('file://'.length), mac)).toBe(false)
    })
  })
})
