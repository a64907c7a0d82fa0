/**
 * Sheet columns with keys, so a formula finds a column's letter instead of hard-coding it: shared by the
 * month workbook's sheets and the payout roll-forward's.
 */
import type { ExportCell, ExportColumn, ExportRow } from '../../electron/shared/contract/export'

interface KeyedColumn<K extends string> extends ExportColumn {
  key: K
}

/** Columns with keys, so formulas find a column's letter instead of hard-coding it. */
export class Columns<K extends string> {
  constructor(readonly list: readonly KeyedColumn<K>[]) {}
  get columns(): ExportColumn[] {
    return this.list.map(({ header, kind, width }) => ({ header, kind, width }))
  }
  letter(key: K): string {
    const index = this.list.findIndex((c) => c.key === key)
    if (index < 0) throw new Error(`no column ${key}`)
    return columnLetter(index + 1)
  }
  /** A whole column of `sheet`, absolute: `'Transactions'!$E:$E`. */
  range(sheet: string, key: K): string {
    const l = this.letter(key)
    return `${quoteSheet(sheet)}!$${l}:$${l}`
  }
  /** Cells in column order from a keyed object; missing keys are empty cells. */
  row(values: Partial<Record<K, ExportCell>>): ExportRow {
    return this.list.map((c) => values[c.key] ?? null)
  }
}

export function columnLetter(n: number): string {
  let s = ''
  for (let x = n; x > 0; x = Math.floor((x - 1) / 26)) s = String.fromCharCode(65 + ((x - 1) % 26)) + s
  return s
}

export function quoteSheet(name: string): string {
  return `'${name.replace(/'/g, "''")}'`
}

export const col = <K extends string>(key: K, header: string, kind: ExportColumn['kind'], width: number) => ({
  key,
  header,
  kind,
  width,
})
