/**
 * The preload exposes `window.closebook` — the typed DesktopApi — and nothing else: no ipcRenderer,
 * no generic invoke. Every call goes to its own channel; main validates sender and arguments.
 */
import { contextBridge, ipcRenderer } from 'electron'
import { createDesktopApi } from '../shared/channels'
import type { DesktopApi } from '../shared/contract'
import type { CallOutcome } from '../shared/errors'

const closebook = createDesktopApi(
  (channel, args) => ipcRenderer.invoke(channel, args) as Promise<CallOutcome>,
  'bridge',
) satisfies DesktopApi

contextBridge.exposeInMainWorld('closebook', closebook)
