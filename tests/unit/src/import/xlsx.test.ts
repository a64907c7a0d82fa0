import ExcelJS from 'exceljs'
import { describe, expect, it } from 'vitest'
import { applyProfile } from '../../../../src/import/profiles'
import { isXlsx, readXlsx } from '../../../../src/import/xlsx'

async function workbook(): Promise<Uint8Array> {
  const book = new ExcelJS.Workbook()
  const ws = book.addWorksheet('注文')
  ws.addRow([])
  ws.addRow(['注文番号', '注文日', '金額', '顧客'])
  ws.addRow([
    'ORD-1',
    new Date(Date.UTC(2026, 9, 1)),
    1200,
    { richText: [{ text: '山田' }, { text: ' 太郎' }] },
  ])
  ws.addRow(['ORD-2', '2026/10/02', { formula: '1000+500', result: 1500 }, 'Sato'])
  ws.addRow(['ORD-3', new Date(Date.UTC(2026, 9, 31, 23, 30)), 900, null])
  return new Uint8Array(await book.xlsx.writeBuffer())
}

describe('readXlsx', () => {
  it('reads the first sheet as a table: headers, cell text, formulas by their value, file lines', async () => {
    const bytes = await workbook()
    expect(isXlsx('orders.xlsx', bytes)).toBe(true)
    expect(isXlsx('orders.csv', bytes)).toBe(false)
    const table = await readXlsx(bytes)
    expect(table.headers).toEqual(['注文番号', '注文日', '金額', '顧客'])
    expect(table.rows).toEqual([
      ['ORD-1', '2026-10-01', '1200', '山田 太郎'],
      ['ORD-2', '2026/10/02', '1500', 'Sato'],
      ['ORD-3', '2026-10-31 23:30:00', '900', ''],
    ])
    expect(table.lines).toEqual([3, 4, 5])
    const applied = applyProfile(table, {
      id: 'x',
      name: 'Excel orders',
      source: 'orders',
      columns: { orderNumber: '注文番号', date: '注文日', amount: '金額', customer: '顧客' },
      defaultCurrency: 'JPY',
      timeZone: 'America/New_York',
    })
    expect(applied.errors).toEqual([])
    expect(applied.rows.map((r) => [r.line, r.orderNumber, r.amount, r.day])).toEqual([
      [3, 'ORD-1', 1200, '2026-10-01'],
      [4, 'ORD-2', 1500, '2026-10-02'],
      // The sheet's wall clock, read in the accounting zone: still October 31st in New York.
      [5, 'ORD-3', 900, '2026-10-31'],
    ])
  })
})
