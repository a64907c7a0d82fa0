/**
 * Sync progress as the screen takes it: the engine reports after every page (up to ~40 a second at the
 * service's ceiling), and each report re-renders the sync panel (numbers formatted per part). Painting
 * every one cost the UI thread more than the cache writes did, so reports are coalesced: the first one
 * and any change of state are shown at once, the rest at most once per `everyMs`, always the newest.
 */
export interface ProgressThrottle<T> {
  /** A new report: shown now, or kept until the interval ends (replacing one kept before). */
  push: (report: T) => void
  /** Drops a kept report (the run is over and its result is shown instead). */
  cancel: () => void
}

export function throttleProgress<T extends { state: string }>(
  show: (report: T) => void,
  everyMs: number,
  clock: { now(): number } = Date,
): ProgressThrottle<T> {
  let shownAt = -Infinity
  let shownState: string | null = null
  let kept: T | null = null
  let timer: ReturnType<typeof setTimeout> | null = null
  const showNow = (report: T): void => {
    kept = null
    shownAt = clock.now()
    shownState = report.state
    show(report)
  }
  return {
    push: (report) => {
      if (report.state !== shownState || clock.now() - shownAt >= everyMs) {
        if (timer !== null) clearTimeout(timer)
        timer = null
        showNow(report)
        return
      }
      kept = report
      timer ??= setTimeout(
        () => {
          timer = null
          if (kept) showNow(kept)
        },
        Math.max(0, shownAt + everyMs - clock.now()),
      )
    },
    cancel: () => {
      if (timer !== null) clearTimeout(timer)
      timer = null
      kept = null
    },
  }
}
