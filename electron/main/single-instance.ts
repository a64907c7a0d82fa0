/**
 * One desktop instance per user data directory. Two would each rewrite `connections.json` from their own
 * copy and lose a connection (orphaning its keychain entry), and their renderers would share one
 * IndexedDB. The second launch therefore hands over to the first — which brings its window to the front,
 * so the user sees what is already running — and quits, saying so on its console.
 */
import type { App } from 'electron'

export type SingleInstanceApp = Pick<App, 'requestSingleInstanceLock' | 'quit' | 'on'>

/** true: this is the one instance (keep starting); false: another runs, and this one is quitting. */
export function claimSingleInstance(
  app: SingleInstanceApp,
  showExisting: () => void,
  log: (message: string) => void = (message) => console.error(message),
): boolean {
  if (!app.requestSingleInstanceLock()) {
    log(
      '[closebook] Closebook is already running for this user; its window was brought to the front. ' +
        'Two instances on one data folder would overwrite each other’s connections, so this one quits.',
    )
    app.quit()
    return false
  }
  app.on('second-instance', () => showExisting())
  return true
}
