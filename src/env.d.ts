/// <reference types="vite/client" />
import type { DesktopApi } from '../electron/shared/contract'

declare global {
  interface Window {
    /** Set by the Electron preload; absent in the web host, where src/platform uses HTTP instead. */
    closebook?: DesktopApi
  }
}
