import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { AuditRepository } from '../../../../src/db/audit-repository'
import type { ClosebookDb } from '../../../../src/db/database'
import type { RecordKey } from '../../../../src/db/records'
import { CONN, T0, auditEntry, openDb, uuid } from './fixtures'

const key: RecordKey = `charge:${uuid(1)}`

let db: ClosebookDb
let repo: AuditRepository

beforeEach(() => {
  db = openDb()
  repo = new AuditRepository(db)
})
afterEach(() => db.close())

describe('AuditRepository', () => {
  it('offers only add, list and count: no way to change or remove a row', () => {
    const methods = Object.getOwnPropertyNames(AuditRepository.prototype).filter((m) => m !== 'constructor')
    expect(methods.sort()).toEqual(['add', 'count', 'listByConnection', 'listByKey', 'listByPeriod'])
    // The database sits in a true private field: not reachable as a property.
    expect(Object.keys(repo)).toEqual([])
    expect((repo as unknown as Record<string, unknown>)['db']).toBeUndefined()
  })

  it('never overwrites an existing row, even when given its seq', async () => {
    const first = await repo.add(auditEntry({ key, action: 'mark' }))
    const second = await repo.add({ ...auditEntry({ key, action: 'unmark' }), seq: first })
    expect(second).toBeGreaterThan(first)
    expect((await repo.listByKey(CONN, key)).map((a) => [a.seq, a.action])).toEqual([
      [first, 'mark'],
      [second, 'unmark'],
    ])
  })

  it('lists by connection in time order, by period and by key', async () => {
    await repo.add(auditEntry({ at: T0 + 2, key, action: 'note' }))
    await repo.add(auditEntry({ at: T0 + 1, key, action: 'mark' }))
    await repo.add(auditEntry({ at: T0 + 3, key: null, action: 'close-period', period: '2026-10' }))
    await repo.add(auditEntry({ at: T0 + 4, key: null, action: 'close-period', period: '2026-11' }))
    await repo.add(auditEntry({ connectionId: 'other', at: T0, key }))

    expect((await repo.listByConnection(CONN)).map((a) => a.at - T0)).toEqual([1, 2, 3, 4])
    expect((await repo.listByKey(CONN, key)).map((a) => a.action)).toEqual(['mark', 'note'])
    expect((await repo.listByPeriod(CONN, '2026-11')).map((a) => a.action)).toEqual(['close-period'])
    expect(await repo.count(CONN)).toBe(4)
    expect(await repo.count('other')).toBe(1)
  })
})
