/**
 * Asks main every so often until the run ends whether this run's queued calls wait (for a rate limit or
 * a retry), and reports until when; null when they do not.
 */
import type { QueueStateView } from '../../electron/shared/contract/api'

export async function pollQueue(
  queueState: () => Promise<QueueStateView>,
  jobId: string,
  signal: AbortSignal,
  every: number,
  now: () => number,
  report: (waitingUntil: number | null) => void,
): Promise<void> {
  while (!signal.aborted) {
    await new Promise<void>((resolve) => {
      // The listener goes with its timer: one added per poll and never removed piled up on the signal
      // over a long sync (Node warned of a leak past 10).
      const stop = (): void => {
        clearTimeout(timer)
        resolve()
      }
      const timer = setTimeout(() => {
        signal.removeEventListener('abort', stop)
        resolve()
      }, every)
      signal.addEventListener('abort', stop, { once: true })
    })
    if (signal.aborted) return
    try {
      const state = await queueState()
      const job = state.byJob.find((j) => j.jobId === jobId)
      const until = job?.waitingUntil ?? state.waitingUntil
      report(until !== null && until > now() ? until : null)
    } catch {
      // Progress display only: a failed poll changes nothing.
    }
  }
}
