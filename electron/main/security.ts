/**
 * Electron hardening of DESIGN §1: one place that sets the window preferences and blocks navigation,
 * new windows, webviews and permission requests. Kept as small functions so tests can drive them with a
 * faked `electron` module.
 */
import { posix, win32 } from 'node:path'
import { fileURLToPath } from 'node:url'
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

/**
 * Is `url` one of the app's own pages (the packaged renderer, or the dev server in development)?
 * A file URL is turned back into a path with the platform's own rules (`file:///C:/x` is `C:\x` on
 * Windows, percent-escapes decoded), never compared as text: the URL path `/C:/…` is not `C:\…`.
 */
export function isAppUrl(url: string, appOrigin: AppOrigin): boolean {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return false
  }
  if (appOrigin.kind === 'file') {
    if (parsed.protocol !== 'file:') return false
    const windows = (appOrigin.platform ?? process.platform) === 'win32'
    let path: string
    try {
      // Query and fragment (the hash route) are not part of the file.
      path = fileURLToPath(`file://${parsed.host}${parsed.pathname}`, { windows })
    } catch {
      return false // e.g. a UNC host on POSIX, or an encoded slash
    }
    if (!windows) return posix.normalize(path) === posix.normalize(appOrigin.indexPath)
    // Windows paths are case-insensitive (the drive letter arrives in either case).
    return win32.normalize(path).toLowerCase() === win32.normalize(appOrigin.indexPath).toLowerCase()
  }
  return parsed.origin === appOrigin.origin
}

export type AppOrigin =
  | {
      kind: 'file'
      /** The renderer's index.html as a path of this platform (`C:\…\index.html` on Windows). */
      indexPath: string
      /** Defaults to `process.platform`; tests pass another to check Windows and macOS paths anywhere. */
      platform?: NodeJS.Platform
    }
  | { kind: 'dev-server'; origin: string }

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
