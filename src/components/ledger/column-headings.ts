/** The ledger grid's column headings: their labels, and sorting by them (click, or Enter on a focused one). */
import { useI18n } from 'vue-i18n'
import { useDisplay } from '../../i18n/labels'
import { columnLabelKey, sortOf, type ColumnId } from '../../stores/ledger-columns-store'
import { useLedgerStore } from '../../stores/ledger-store'

export function useColumnHeadings(): {
  headerLabel: (c: ColumnId) => string
  sortOn: (c: ColumnId) => void
  ariaSort: (c: ColumnId) => 'ascending' | 'descending' | undefined
} {
  const { t } = useI18n()
  const display = useDisplay()
  const ledger = useLedgerStore()

  const headerLabel = (c: ColumnId): string =>
    c === 'date'
      ? t('ledger.columns.date', { zone: display.zoneName(ledger.timeZone) })
      : t(columnLabelKey(c))
  function sortOn(c: ColumnId): void {
    const column = sortOf(c)
    if (column) ledger.sortBy(column)
  }
  function ariaSort(c: ColumnId): 'ascending' | 'descending' | undefined {
    if (sortOf(c) === null || sortOf(c) !== ledger.sortColumn) return undefined
    return ledger.order === 'desc' ? 'descending' : 'ascending'
  }
  return { headerLabel, sortOn, ariaSort }
}
