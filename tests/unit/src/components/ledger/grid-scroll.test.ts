import { describe, expect, it } from 'vitest'
import { gridScroll, MAX_BODY_PX } from '../../../../../src/components/ledger/grid-scroll'

const ROW = 32
const VIEW = 600

/** Rows whose line is at least partly in the rows area for `scrollTop`, by their `top`. */
function rowsInView(rows: number, scrollTop: number): number[] {
  const s = gridScroll(rows, ROW, VIEW)
  const first = Math.floor(s.rowOffsetAt(scrollTop) / ROW)
  const out: number[] = []
  for (let i = Math.max(0, first - 2); i < Math.min(rows, first + VIEW / ROW + 2); i++) {
    const top = s.topOf(i, scrollTop)
    if (top + ROW > scrollTop && top < scrollTop + VIEW) out.push(i)
  }
  return out
}

describe('the ledger grid past the height a browser lays out', () => {
  it('is one line per row while the rows fit, as before', () => {
    const s = gridScroll(10_000, ROW, VIEW)
    expect(s.bodyHeight).toBe(320_000)
    expect(s.rowOffsetAt(6_400)).toBe(6_400)
    expect(s.topOf(200, 6_400)).toBe(6_400)
    expect(s.scrollTopFor(6_400, 'up')).toBe(6_400)
  })

  it('keeps the body under the limit at two million rows and shows the last row at the bottom', () => {
    const rows = 2_000_000
    const s = gridScroll(rows, ROW, VIEW)
    expect(s.bodyHeight).toBeLessThanOrEqual(MAX_BODY_PX)
    const end = s.bodyHeight - VIEW // the viewport's largest scrollTop
    const last = rowsInView(rows, end)
    expect(last.at(-1)).toBe(rows - 1)
    expect(s.topOf(rows - 1, end) + ROW).toBeCloseTo(end + VIEW, 6)
    expect(rowsInView(rows, 0)[0]).toBe(0)
    expect(s.topOf(0, 0)).toBe(0)
  })

  it('lays the rows in view one under the other, with none of them past the body', () => {
    const rows = 1_500_000
    const s = gridScroll(rows, ROW, VIEW)
    for (const scrollTop of [0, 1, 12_345, 3_000_000, s.bodyHeight - VIEW - 1, s.bodyHeight - VIEW]) {
      const inView = rowsInView(rows, scrollTop)
      expect(inView.length).toBeGreaterThanOrEqual(VIEW / ROW)
      for (let k = 1; k < inView.length; k++)
        expect(s.topOf(inView[k]!, scrollTop) - s.topOf(inView[k - 1]!, scrollTop)).toBe(ROW)
      for (const i of inView) expect(s.topOf(i, scrollTop) + ROW).toBeLessThanOrEqual(s.bodyHeight + ROW)
    }
  })

  it('scrolls any row fully into view, from above and from below', () => {
    const rows = 3_000_000
    const s = gridScroll(rows, ROW, VIEW)
    for (const index of [0, 1, 999_999, 1_048_577, 2_345_678, rows - 1]) {
      const top = index * ROW
      const down = s.scrollTopFor(top, 'down') // the row at the top
      expect(s.rowOffsetAt(down)).toBeLessThanOrEqual(top)
      expect(top + ROW).toBeLessThanOrEqual(s.rowOffsetAt(down) + VIEW)
      const up = s.scrollTopFor(top + ROW - VIEW, 'up') // the row at the bottom
      expect(s.rowOffsetAt(up) + VIEW).toBeGreaterThanOrEqual(top + ROW)
      expect(s.rowOffsetAt(up)).toBeLessThanOrEqual(top)
    }
  })
})
