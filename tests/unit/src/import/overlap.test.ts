import ExcelJS from 'exceljs'
import { describe, expect, it } from 'vitest'
import { dropAlreadyImported } from '../../../../src/import/overlap'
import {
  applyProfile,
  suggestProfile,
  type ImportedRow,
  type MappingProfile,
} from '../../../../src/import/profiles'
import { readImportFile } from '../../../../src/import/read-file'

function row(line: number, day: string, amount: number, description = 'ﾌﾘｺﾐ'): ImportedRow {
  return {
    line,
    source: 'bank',
    orderNumber: null,
    at: 0,
    day,
    amount,
    currency: 'JPY',
    customer: null,
    description,
  }
}

describe('dropAlreadyImported', () => {
  it('leaves out the lines an overlapping earlier download holds, counting equal lines', () => {
    const earlier = [row(2, '2026-11-01', 3300), row(3, '2026-11-01', 3300), row(4, '2026-11-02', 500)]
    const next = [
      row(2, '2026-11-01', 3300),
      row(3, '2026-11-01', 3300),
      row(4, '2026-11-01', 3300),
      row(5, '2026-11-02', 500),
      row(6, '2026-11-03', 700),
    ]
    const { kept, dropped } = dropAlreadyImported(next, earlier)
    expect(dropped).toEqual([2, 3, 5])
    // A third equal line is new: the earlier file had two.
    expect(kept.map((r) => r.line)).toEqual([4, 6])
  })

  it('keeps everything when nothing was imported before', () => {
    expect(dropAlreadyImported([row(2, '2026-11-01', 1)], []).dropped).toEqual([])
  })
})

describe('an in-house Excel order list', () => {
  it('reads dates typed as serial numbers in General cells and full-width amounts', async () => {
    const book = new ExcelJS.Workbook()
    const ws = book.addWorksheet('受注一覧')
    ws.addRow(['受注番号', '受注日', '請求金額', 'お支払方法'])
    ws.addRow(['ORDー0001', 46330, '￥１２，３４０', 'クレジットカード'])
    ws.addRow(['ORD-0002', '令和8年11月5日', 5000, '代金引換'])
    const bytes = new Uint8Array(await book.xlsx.writeBuffer())
    const read = await readImportFile('受注一覧.xlsx', bytes)
    expect(read.format).toBe('xlsx')
    const columns = suggestProfile(read.parsed.headers, 'orders')
    expect(columns).toMatchObject({
      orderNumber: '受注番号',
      date: '受注日',
      amount: '請求金額',
      paymentMethod: 'お支払方法',
    })
    const profile: MappingProfile = {
      id: 'inhouse',
      name: 'In-house',
      source: 'orders',
      columns: { date: '受注日', amount: '請求金額', ...columns },
      defaultCurrency: 'JPY',
      timeZone: 'Asia/Tokyo',
    }
    const applied = applyProfile(read.parsed, profile)
    expect(applied.errors).toEqual([])
    expect(applied.rows.map((r) => [r.orderNumber, r.day, r.amount, r.paymentMethod])).toEqual([
      ['ORDー0001', '2026-11-04', 12340, 'クレジットカード'],
      ['ORD-0002', '2026-11-05', 5000, '代金引換'],
    ])
  })
})
