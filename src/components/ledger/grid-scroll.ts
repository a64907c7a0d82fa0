/**
 * Where the ledger grid's rows sit for a scroll position. A browser lays out no element taller than
 * about 33.5 million pixels (Chromium; Firefox about 17.9 million), so a body of one 32 px line per row
 * stops at about a million rows: the rows after it could not be scrolled to, and their positions past
 * the limit collapsed onto one another. Up to MAX_BODY_PX the body is exactly one line per row; past it
 * the body is MAX_BODY_PX tall and a scroll position maps to rows in proportion, the first row at the top
 * and the last at the bottom, with the rows in view placed relative to the scroll position.
 */
export const MAX_BODY_PX = 8_000_000

export interface GridScroll {
  /** The scrolling body's height in pixels. */
  readonly bodyHeight: number
  /** The pixel offset into the full list of rows (one line per row) shown at the top for `scrollTop`. */
  rowOffsetAt(scrollTop: number): number
  /** The `top` of row `index` within the body, for the current `scrollTop`. */
  topOf(index: number, scrollTop: number): number
  /** The `scrollTop` that shows the full list's pixel `offset` at the top (rounded as `round` says). */
  scrollTopFor(offset: number, round: 'down' | 'up'): number
}

/**
 * `rows` lines of `rowHeight` in a viewport whose rows area is `viewHeight` tall (the viewport less its
 * sticky header).
 */
export function gridScroll(rows: number, rowHeight: number, viewHeight: number): GridScroll {
  const full = rows * rowHeight
  if (full <= MAX_BODY_PX)
    return {
      bodyHeight: full,
      rowOffsetAt: (scrollTop) => scrollTop,
      topOf: (index) => index * rowHeight,
      scrollTopFor: (offset) => offset,
    }
  const view = Math.max(0, Math.min(viewHeight, MAX_BODY_PX - 1))
  // Each pixel of the body's scroll range stands for `ratio` pixels of the full list's.
  const ratio = (full - view) / (MAX_BODY_PX - view)
  const rowOffsetAt = (scrollTop: number): number => Math.min(full - view, Math.max(0, scrollTop) * ratio)
  return {
    bodyHeight: MAX_BODY_PX,
    rowOffsetAt,
    topOf: (index, scrollTop) => scrollTop + index * rowHeight - rowOffsetAt(scrollTop),
    scrollTopFor: (offset, round) => {
      // The ends exactly: rounding there would leave the first or last row a few pixels out of view.
      if (offset >= full - view) return MAX_BODY_PX - view
      if (offset <= 0) return 0
      const exact = offset / ratio
      return round === 'down' ? Math.floor(exact) : Math.ceil(exact)
    },
  }
}
