import type { WorkbookExports } from '../workbook/workbook-exports'
import type { HandlersFor } from './types'

export function exportHandlers(exports: WorkbookExports): HandlersFor<'export'> {
  return {
    'export:begin': async (args) => ({ exportId: await exports.begin(args) }),
    'export:appendRows': async ({ exportId, sheet, rows, packed }) => ({
      // The contract lets exactly one of the two through.
      rowsWritten: await exports.appendRows(exportId, sheet, packed ?? rows ?? []),
    }),
    'export:finish': ({ exportId }) => exports.finish(exportId),
    'export:cancel': async ({ exportId }) => ({ cancelled: await exports.cancel(exportId) }),
  }
}
