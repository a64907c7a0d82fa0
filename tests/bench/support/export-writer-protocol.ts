/** The messages between export-worker.ts (the renderer's side) and export-writer-thread.ts (main's). */
import type { exportContract } from '../../../electron/shared/contract/export'

export interface WriterCall {
  id: number
  channel: keyof typeof exportContract
  args: unknown
}

export type WriterReply = { id: number; result: unknown } | { id: number; error: string }

/** Posted once the thread has loaded its modules, as main has before any export. */
export const WRITER_READY = 'ready'

/** Asks the thread for its own CPU seconds (answered with a number), once the export is done. */
export const WRITER_CPU = 'cpu'
