/**
 * Electron hardening of DESIGN §1: one place that sets the window preferences and blocks navigation,
 * new windows, webviews and permission requests. Kept as small functions so tests can drive them with a
 * faked `electron` module.
 */
import type { BrowserWindowConstructorOptions, Session, WebContents } from 'electron'
import { RENDERER_CSP } from '../shared/security'

export function secureWebPreferences(preloadPath: string): BrowserWindowConstructorOptions['webPreferences'] {
  return {
    preload: preloadPath,
    contextIsolation: true,
    sandbox: true,
    nodeIntegration: false,
    nodeIntegrationInWorker: false,
    nodeIntegrationInSubFrames: false,
    webSecurity: true,
    allowRunningInsecureContent: false,
    webviewTag: false,
    spellcheck: false,
    // Middle-click would open links in a new window without going through will-navigate.
    disableBlinkFeatures: 'Auxclick',
  }
}

/** Is `url` one of the app's own pages (the packaged renderer, or the dev server in development)? */
export function isAppUrl(url: string, appOrigin: AppOrigin): boolean {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return false
  }
  if (appOrigin.kind === 'file') {
    return parsed.protocol === 'file:' && decodeURIComponent(parsed.pathname) === appOrigin.indexPath
  }
  return parsed.origin === appOrigin.origin
}

export type AppOrigin = { kind: 'file'; indexPath: string } | { kind: 'dev-server'; origin: string }

export function lockDownWebContents(contents: WebContents, appOrigin: AppOrigin): void {
  contents.on('will-navigate', (event, url) => {
    if (!isAppUrl(url, appOrigin)) event.preventDefault()
  })
  contents.on('will-redirect', (event, url) => {
    if (!isAppUrl(url, appOrigin)) event.preventDefault()
  })
  contents.on('will-attach-webview', (event) => event.preventDefault())
  contents.setWindowOpenHandler(() => ({ action: 'deny' }))
}

export function lockDownSession(session: Session): void {
  session.setPermissionRequestHandler((_contents, _permission, callback) => callback(false))
  session.setPermissionCheckHandler(() => false)
  session.webRequest.onHeadersReceived((details, callback) => {
    callback({
      responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [RENDERER_CSP] },
    })
  })
}
