import type { FileWriter } from '../files/file-writer'
import type { HandlersFor } from './types'

export function filesHandlers(files: FileWriter): HandlersFor<'files'> {
  return {
    'files:begin': async ({ suggestedName, encoding }) => ({
      fileId: await files.begin(suggestedName, encoding),
    }),
    'files:append': async ({ fileId, chunk }) => ({ bytesWritten: await files.append(fileId, chunk) }),
    'files:finish': ({ fileId }) => files.finish(fileId),
    'files:cancel': async ({ fileId }) => ({ cancelled: await files.cancel(fileId) }),
  }
}
