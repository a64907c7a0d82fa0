import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { ClosebookDb } from '../../../../src/db/database'
import { ImportsRepository } from '../../../../src/db/imports-repository'
import type { ImportedRowRecord, ImportRecord } from '../../../../src/domain/records'
import { CONN, T0, openDb } from './fixtures'

let db: ClosebookDb
let repo: ImportsRepository
beforeEach(() => {
  db = openDb(`imports-${Math.random()}`)
  repo = new ImportsRepository(db)
})
afterEach(() => db.close())

const file = (over: Partial<ImportRecord> = {}): ImportRecord => ({
  connectionId: CONN,
  id: 'imp-1',
  source: 'orders',
  fileName: 'orders-2026-10.csv',
  hash: 'b'.repeat(64),
  importedAt: T0,
  rowCount: 2,
  profileName: 'Shop orders',
  encoding: 'utf-8',
  ...over,
})
const row = (line: number, over: Partial<ImportedRowRecord> = {}): ImportedRowRecord => ({
  connectionId: CONN,
  importId: 'imp-1',
  line,
  source: 'orders',
  orderNumber: `ORD-${line}`,
  at: T0,
  day: '2026-10-01',
  amount: 1000 * line,
  currency: 'JPY',
  customer: null,
  description: null,
  matchedKeys: [],
  ...over,
})

describe('ImportsRepository', () => {
  it('stores a file with its rows once; the same bytes again add nothing', async () => {
    expect(await repo.add(file(), [row(2), row(3)])).toMatchObject({ added: true })
    const again = await repo.add(file({ id: 'imp-2', fileName: 'copy.csv' }), [row(2, { importId: 'imp-2' })])
    expect(again).toMatchObject({ added: false, existing: { id: 'imp-1', fileName: 'orders-2026-10.csv' } })
    expect(await db.imports.count()).toBe(1)
    expect((await repo.rows(CONN)).map((r) => r.line)).toEqual([2, 3])
  })

  it('lists the unmatched rows of a range of days with their file name', async () => {
    await repo.add(file(), [row(2), row(3, { day: '2026-10-05' }), row(4, { day: '2026-11-01' })])
    await db.importedRows.update([CONN, 'imp-1', 2], { matchedKeys: ['charge:x'] })
    const open = await repo.unmatchedBetween(CONN, '2026-10-01', '2026-10-31')
    expect(open.map((r) => [r.line, r.fileName])).toEqual([[3, 'orders-2026-10.csv']])
  })
})
