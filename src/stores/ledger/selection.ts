/**
 * The accountant's selection in the grid: the ticked records (by key, so they survive a scroll that drops
 * their rows), the anchor of a Shift range, and the focused row whose details are shown.
 */
import { ref, type Ref, type ShallowRef } from 'vue'
import type { HistoryRecord, RecordKey } from '../../domain/records'

export interface LedgerSelection {
  selection: Ref<Set<RecordKey>>
  /** The row the details show (and the grid's keyboard focus). */
  focused: Ref<number>
  select: (index: number, mode: 'only' | 'toggle' | 'range') => void
  /**
   * Moves the focus (the record the details show) without touching the ticked rows: reading a record
   * must not drop what the accountant ticked for "Mark selected".
   */
  focusRow: (index: number) => void
  clearSelection: () => void
}

export function useLedgerSelection(rows: ShallowRef<Map<number, HistoryRecord>>): LedgerSelection {
  const selection = ref(new Set<RecordKey>())
  const anchor = ref<number | null>(null)
  const focused = ref(0)

  function select(index: number, mode: 'only' | 'toggle' | 'range'): void {
    const record = rows.value.get(index)
    if (!record) return
    const next = new Set(mode === 'only' ? [] : selection.value)
    if (mode === 'range' && anchor.value !== null) {
      const [a, b] = anchor.value < index ? [anchor.value, index] : [index, anchor.value]
      for (let i = a; i <= b; i++) {
        const r = rows.value.get(i)
        if (r) next.add(r.key)
      }
    } else if (mode === 'toggle' && next.has(record.key)) {
      next.delete(record.key)
      anchor.value = index
    } else {
      next.add(record.key)
      anchor.value = index
    }
    selection.value = next
    focused.value = index
  }

  function focusRow(index: number): void {
    if (rows.value.get(index)) focused.value = index
  }

  function clearSelection(): void {
    selection.value = new Set()
    anchor.value = null
  }

  return { selection, focused, select, focusRow, clearSelection }
}
