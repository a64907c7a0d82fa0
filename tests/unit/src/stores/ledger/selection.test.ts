import { describe, expect, it } from 'vitest'
import { shallowRef } from 'vue'
import type { HistoryRecord, RecordKey } from '../../../../../src/domain/records'
import { useLedgerSelection } from '../../../../../src/stores/ledger/selection'

/** Rows 0–9 loaded, except row 5 (its block not read yet). */
function grid() {
  const rows = shallowRef(new Map<number, HistoryRecord>())
  for (let i = 0; i < 10; i++)
    if (i !== 5) rows.value.set(i, { key: `charge:${i}` as RecordKey } as unknown as HistoryRecord)
  return useLedgerSelection(rows)
}
const keys = (s: ReturnType<typeof grid>) => [...s.selection.value].sort()

describe('ledger selection', () => {
  it('ticks one row, toggles, and extends a Shift range from the anchor over the loaded rows', () => {
    const s = grid()
    s.select(2, 'only')
    expect(keys(s)).toEqual(['charge:2'])
    s.select(7, 'range')
    // Row 5 is not loaded: a range takes the rows it has.
    expect(keys(s)).toEqual(['charge:2', 'charge:3', 'charge:4', 'charge:6', 'charge:7'])
    expect(s.focused.value).toBe(7)
    s.select(3, 'toggle')
    expect(keys(s)).toEqual(['charge:2', 'charge:4', 'charge:6', 'charge:7'])
    // The toggle moved the anchor to row 3: a range from there runs backwards too.
    s.select(1, 'range')
    expect(keys(s)).toEqual(['charge:1', 'charge:2', 'charge:3', 'charge:4', 'charge:6', 'charge:7'])
    s.select(4, 'only')
    expect(keys(s)).toEqual(['charge:4'])
  })

  it('moves the focus without dropping ticked rows, and ignores rows not loaded', () => {
    const s = grid()
    s.select(1, 'toggle')
    s.select(2, 'toggle')
    s.focusRow(8)
    expect(s.focused.value).toBe(8)
    expect(keys(s)).toEqual(['charge:1', 'charge:2'])
    s.focusRow(5)
    s.select(5, 'toggle')
    expect(s.focused.value).toBe(8)
    expect(keys(s)).toEqual(['charge:1', 'charge:2'])
  })

  it('clears the ticks and the anchor: a Shift-click after a clear ticks one row', () => {
    const s = grid()
    s.select(1, 'only')
    s.clearSelection()
    expect(keys(s)).toEqual([])
    s.select(4, 'range')
    expect(keys(s)).toEqual(['charge:4'])
  })
})
