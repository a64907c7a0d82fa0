/**
 * The Electron host: app start, the one window, security, and the IPC transport of DesktopApi.
 * Everything else is in electron/services, shared with the web host.
 */
import { chmodSync } from 'node:fs'
import { join } from 'node:path'
import { app, BrowserWindow, dialog, ipcMain, session, shell } from 'electron'
import { createAppServices, createHandlers } from '../services/app-services'
import { KeyringSecretStore } from '../services/vault/keyring-secret-store'
import { createOpenExternal } from './external-links'
import { registerIpcHost } from './ipc-host'
import { claimSingleInstance } from './single-instance'
import { createSaveDialogDelivery } from './save-dialog'
import { lockDownSession, lockDownWebContents, secureWebPreferences, type AppOrigin } from './security'

const devServerUrl = !app.isPackaged ? process.env['ELECTRON_RENDERER_URL'] : undefined
const indexPath = join(__dirname, '../renderer/index.html')
const appOrigin: AppOrigin = devServerUrl
  ? { kind: 'dev-server', origin: new URL(devServerUrl).origin }
  : { kind: 'file', indexPath }

const ownWindows = new Set<number>()

function createWindow(): void {
  const window = new BrowserWindow({
    width: 1360,
    height: 860,
    minWidth: 960,
    minHeight: 600,
    show: false,
    title: 'Closebook',
    // The flags are repeated literally so static analysis (electronegativity) can see them.
    webPreferences: {
      ...secureWebPreferences(join(__dirname, '../preload/index.js')),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      disableBlinkFeatures: 'Auxclick',
    },
  })
  const id = window.webContents.id
  ownWindows.add(id)
  window.on('closed', () => ownWindows.delete(id))
  lockDownWebContents(window.webContents, appOrigin)
  window.once('ready-to-show', () => window.show())
  if (devServerUrl) void window.loadURL(devServerUrl)
  else void window.loadFile(indexPath)
}

// Refuse webviews and stray windows from any web contents, not only ours.
app.on('web-contents-created', (_event, contents) => {
  contents.on('will-attach-webview', (event) => event.preventDefault())
  contents.setWindowOpenHandler(() => ({ action: 'deny' }))
})

const isOnlyInstance = claimSingleInstance(app, () => {
  const window = BrowserWindow.getAllWindows()[0]
  if (!window) return
  if (window.isMinimized()) window.restore()
  window.show()
  window.focus()
})

if (isOnlyInstance)
  void app.whenReady().then(() => {
    // The profile holds the cache (IndexedDB) and the connection registry: its owner's alone.
    try {
      chmodSync(app.getPath('userData'), 0o700)
    } catch {
      // not fatal: a profile on a file system without modes
    }
    lockDownSession(session.defaultSession)
    const services = createAppServices({
      host: 'electron',
      version: app.getVersion(),
      platform: process.platform,
      dataDir: app.getPath('userData'),
      secretStore: new KeyringSecretStore(),
      openExternal: createOpenExternal(shell),
      deliverFile: createSaveDialogDelivery({
        dialog,
        app,
        focusedWindow: () => BrowserWindow.getFocusedWindow(),
      }),
    })
    // Partial files an earlier run left (it crashed mid-export) are removed before anything is written.
    services
      .leftovers()
      .catch((error: unknown) =>
        console.warn(
          `[closebook] leftover files not removed: ${error instanceof Error ? error.message : 'unknown error'}`,
        ),
      )
    registerIpcHost({
      ipcMain,
      handlers: createHandlers(services),
      appOrigin,
      isOwnWebContents: (webContentsId) => ownWindows.has(webContentsId),
      log: { error: (message) => console.error(`[closebook] ${message}`) },
    })
    createWindow()
    app.on('activate', () => {
      if (BrowserWindow.getAllWindows().length === 0) createWindow()
    })
    app.on('before-quit', () => void services.dispose())
  })

app.on('window-all-closed', () => {
  if (process.platform !== 'darwin') app.quit()
})
