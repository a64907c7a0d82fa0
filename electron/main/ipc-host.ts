/**
 * DesktopApi over Electron IPC. One `ipcMain.handle` per channel; each checks that the call comes from
 * the main frame of one of our windows showing an app page, then hands it to the shared dispatcher, which
 * validates the argument with the contract's zod schema before any handler runs.
 */
import type { IpcMain, IpcMainInvokeEvent } from 'electron'
import { CHANNELS } from '../shared/channels'
import type { CallOutcome } from '../shared/errors'
import { dispatch } from '../services/dispatcher'
import type { Handlers } from '../services/handlers/types'
import { isAppUrl, type AppOrigin } from './security'

export interface IpcHostOptions {
  ipcMain: Pick<IpcMain, 'handle' | 'removeHandler'>
  handlers: Handlers
  appOrigin: AppOrigin
  /** The web contents ids of our own windows. */
  isOwnWebContents(id: number): boolean
  log?: { error(message: string): void }
}

export function isTrustedSender(
  event: IpcMainInvokeEvent,
  options: Pick<IpcHostOptions, 'appOrigin' | 'isOwnWebContents'>,
): boolean {
  const frame = event.senderFrame
  if (!frame) return false // the frame navigated away or was destroyed
  if (!options.isOwnWebContents(event.sender.id)) return false
  if (frame.parent !== null) return false // only the top frame, never an iframe
  return isAppUrl(frame.url, options.appOrigin)
}

export function registerIpcHost(options: IpcHostOptions): () => void {
  for (const channel of CHANNELS) {
    options.ipcMain.handle(
      channel,
      async (event: IpcMainInvokeEvent, args: unknown): Promise<CallOutcome> => {
        if (!isTrustedSender(event, options)) {
          options.log?.error(`refused ${channel} from an untrusted frame`)
          return {
            ok: false,
            error: {
              code: 'forbidden_sender',
              message: 'This call is only allowed from the Closebook window.',
            },
          }
        }
        const controller = new AbortController()
        // One listener per call in flight, removed when the call ends: queue polling alone makes
        // thousands of calls an hour, and a listener left behind per call would pile up on the sender.
        const abort = (): void => controller.abort()
        event.sender.once('destroyed', abort)
        try {
          return await dispatch(
            options.handlers,
            channel,
            args,
            { host: 'electron', signal: controller.signal },
            options.log,
          )
        } finally {
          event.sender.removeListener('destroyed', abort)
        }
      },
    )
  }
  return () => {
    for (const channel of CHANNELS) options.ipcMain.removeHandler(channel)
  }
}
