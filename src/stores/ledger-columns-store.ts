/**
 * The ledger grid's columns: which optional ones are shown and how wide each is, remembered in the
 * cache's settings (the view reaches the cache only through stores).
 */
import { defineStore } from 'pinia'
import { computed, ref } from 'vue'
import { z } from 'zod'
import { appCache } from '../db/cache'
import { isSortColumn, type SortColumn } from './ledger-sort'

/** Columns the accountant may hide, in display order after the date. */
export const OPTIONAL_COLUMNS = [
  'store',
  'type',
  'status',
  'amount',
  'fee',
  'net',
  'currency',
  'mode',
  'brand',
  'holder',
  'order',
  'rec',
  'settled',
  'note',
  'matched',
] as const
export type OptionalColumn = (typeof OPTIONAL_COLUMNS)[number]
/** The key under ledger.columns of each column's heading. */
export const COLUMN_LABEL: Record<OptionalColumn, string> = {
  store: 'store',
  type: 'type',
  status: 'status',
  amount: 'amount',
  fee: 'fee',
  net: 'net',
  currency: 'currency',
  mode: 'mode',
  brand: 'brand',
  holder: 'cardholder',
  order: 'order',
  rec: 'reconciled',
  settled: 'settled',
  note: 'note',
  matched: 'matched',
}

/** The i18n key of a column's heading; "Matched to" and "Settled" have theirs in their own blocks. */
export const columnLabelKey = (c: OptionalColumn): string =>
  c === 'matched'
    ? 'ledger.matchLinks.column'
    : c === 'settled'
      ? 'ledgerSettled.column'
      : `ledger.columns.${COLUMN_LABEL[c]}`

/** Header cells in display order. Date is always shown; a column sorts by its own id when it can. */
export type ColumnId = 'date' | OptionalColumn
export const sortOf = (c: ColumnId): SortColumn | null => (isSortColumn(c) ? c : null)

/** Column widths in px, resizable by pointer or keyboard. */
export const DEFAULT_WIDTHS: Record<ColumnId, number> = {
  date: 184,
  store: 128,
  type: 72,
  status: 96,
  amount: 120,
  fee: 88,
  net: 112,
  currency: 64,
  mode: 64,
  brand: 112,
  holder: 144,
  order: 112,
  rec: 160,
  settled: 160,
  note: 192,
  matched: 240,
}
export const MIN_WIDTH = 40
export const MAX_WIDTH = 640
/** The width of the tick-box column, which is not resizable. */
export const SELECT_WIDTH = 44

export const useLedgerColumnsStore = defineStore('ledgerColumns', () => {
  const hidden = ref(new Set<string>())
  const widths = ref<Partial<Record<ColumnId, number>>>({})

  const shown = (c: OptionalColumn): boolean => !hidden.value.has(c)
  const widthOf = (c: ColumnId): number => widths.value[c] ?? DEFAULT_WIDTHS[c]
  const headerColumns = computed<ColumnId[]>(() => ['date', ...OPTIONAL_COLUMNS.filter((c) => shown(c))])
  const columnVars = computed(() =>
    Object.fromEntries(
      (Object.keys(DEFAULT_WIDTHS) as ColumnId[]).map((c) => [`--w-${c}`, `${widthOf(c)}px`]),
    ),
  )
  /** The rows are as wide as their columns, so header and body scroll sideways together. */
  const rowWidth = computed(() => SELECT_WIDTH + headerColumns.value.reduce((s, c) => s + widthOf(c), 0))

  /** Reads the remembered choice; an invalid saved width is dropped (the default applies). */
  async function load(): Promise<void> {
    const settings = appCache().settings
    const saved = await settings.get('ledgerHiddenColumns', z.array(z.string()), [])
    hidden.value = new Set(saved)
    const savedWidths = await settings.get(
      'ledgerColumnWidths',
      z.record(z.string(), z.number().int().min(MIN_WIDTH).max(MAX_WIDTH)),
      {},
    )
    widths.value = Object.fromEntries(Object.entries(savedWidths).filter(([c]) => c in DEFAULT_WIDTHS))
  }

  function setWidth(c: ColumnId, px: number): void {
    widths.value = { ...widths.value, [c]: Math.round(Math.min(MAX_WIDTH, Math.max(MIN_WIDTH, px))) }
  }

  function saveWidths(): void {
    // A plain copy: IndexedDB cannot clone Vue's reactive proxy. Losing a width is not worth an alert.
    appCache()
      .settings.set('ledgerColumnWidths', { ...widths.value })
      .catch((e: unknown) => console.warn('column widths not saved', e))
  }

  async function toggleColumn(c: OptionalColumn, visible: boolean): Promise<void> {
    const next = new Set(hidden.value)
    if (visible) next.delete(c)
    else next.add(c)
    hidden.value = next
    await appCache().settings.set('ledgerHiddenColumns', [...next])
  }

  return {
    hidden,
    widths,
    shown,
    widthOf,
    headerColumns,
    columnVars,
    rowWidth,
    load,
    setWidth,
    saveWidths,
    toggleColumn,
  }
})
