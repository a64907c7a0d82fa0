import { basename, join } from 'node:path'
import type { App, BrowserWindow, Dialog } from 'electron'
import type { DeliveredFile } from '../shared/contract/files'
import { moveIntoPlace } from '../services/files/move-into-place'

/** The desktop's `deliverFile`: the save dialog chooses the place, then the file is moved there whole. */
export function createSaveDialogDelivery(deps: {
  dialog: Pick<Dialog, 'showSaveDialog'>
  app: Pick<App, 'getPath'>
  focusedWindow: () => BrowserWindow | null
}): (tempPath: string, suggestedName: string) => Promise<DeliveredFile> {
  return async (tempPath, suggestedName) => {
    const options = { defaultPath: join(deps.app.getPath('documents'), suggestedName) }
    const window = deps.focusedWindow()
    const choice = window
      ? await deps.dialog.showSaveDialog(window, options)
      : await deps.dialog.showSaveDialog(options)
    if (choice.canceled || !choice.filePath) return { savedTo: 'cancelled', fileName: suggestedName }
    await moveIntoPlace(tempPath, choice.filePath)
    return { savedTo: 'path', path: choice.filePath, fileName: basename(choice.filePath) }
  }
}
