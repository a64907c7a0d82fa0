/**
 * The main process's side of a workbook export, in a thread of its own: each message is one DesktopApi
 * call (`export:*`), checked by the contract and answered by main's own handlers over its streaming
 * writer. Messages are structured clones, as IPC's are, so the renderer's side (export-worker.ts) and this
 * one each pay what their process pays in the app, and run side by side as the two processes do.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { moveIntoPlace } from '../../../electron/services/files/move-into-place'
import { exportHandlers } from '../../../electron/services/handlers/export-handlers'
import { WorkbookExports } from '../../../electron/services/workbook/workbook-exports'
import { exportContract } from '../../../electron/shared/contract/export'
import { threadCpuSeconds } from './proc-cpu'
import { WRITER_CPU, WRITER_READY, type WriterCall, type WriterReply } from './export-writer-protocol'

const { dataDir, target } = workerData as { dataDir: string; target: string }
const handlers = exportHandlers(
  new WorkbookExports({
    dataDir,
    deliverFile: async (temp, fileName) => {
      await moveIntoPlace(temp, target)
      return { savedTo: 'path', path: target, fileName }
    },
  }),
)

parentPort?.on('message', (call: WriterCall | typeof WRITER_CPU) => {
  if (call === WRITER_CPU) return parentPort?.postMessage(threadCpuSeconds())
  const handle = handlers[call.channel] as (args: unknown) => Promise<unknown>
  Promise.resolve()
    .then(() => handle(exportContract[call.channel].args.parse(call.args)))
    .then(
      (result) => parentPort?.postMessage({ id: call.id, result } satisfies WriterReply),
      (error: unknown) =>
        parentPort?.postMessage({
          id: call.id,
          error: error instanceof Error ? error.message : String(error),
        } satisfies WriterReply),
    )
})
parentPort?.postMessage(WRITER_READY)
