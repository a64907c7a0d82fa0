/**
 * A restore's untracked writes are IndexedDB requests in the caller's Dexie transaction: what they write
 * commits or rolls back with everything else the transaction writes, and Dexie keeps the transaction for
 * what the caller does after them.
 */
import Dexie from 'dexie'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { ClosebookDb } from '../../../../src/db/database'
import type { DayTokensRecord } from '../../../../src/db/storage-rows'
import { writeUntracked } from '../../../../src/db/untracked-writes'
import { CONN, openDb } from './fixtures'

let db: ClosebookDb

beforeEach(() => {
  db = openDb('untracked-writes')
})

afterEach(() => {
  db.close()
})

/** Token rows of `days` (the shape of a day's search part is not what these tests are about). */
const rowsOf = (days: readonly number[]): DayTokensRecord[] =>
  days.map((day) => ({ connectionId: CONN, day, part: 0, keys: [], times: [], texts: [], fields: [] }))

const next = () => db.generationTables(2)

describe('untracked writes', () => {
  it('write every row, in the transaction that asked', async () => {
    const { dayTokens, dayDigests } = next()
    await db.transaction('rw', [dayTokens, dayDigests], async () => {
      const tx = Dexie.currentTransaction
      await writeUntracked(dayTokens, rowsOf([1, 2, 3]), 'add')
      expect(Dexie.currentTransaction).toBe(tx)
      await writeUntracked(dayTokens, rowsOf([3, 4]), 'put')
      expect(Dexie.currentTransaction).toBe(tx)
    })
    expect(await dayTokens.toCollection().primaryKeys()).toEqual([1, 2, 3, 4].map((d) => [CONN, d, 0]))
  })

  it('roll back with the transaction: a failure after them leaves none of their rows, nor what followed', async () => {
    const { dayTokens, dayDigests } = next()
    const write = db.transaction('rw', [dayTokens, dayDigests], async () => {
      await writeUntracked(dayTokens, rowsOf([1, 2]), 'add')
      // A Dexie write after them joins the same transaction (it would commit on its own otherwise).
      await dayDigests.put({ connectionId: CONN, day: 9, records: [] })
      throw new Error('disk full')
    })
    await expect(write).rejects.toThrow('disk full')
    expect(await dayTokens.count()).toBe(0)
    expect(await dayDigests.count()).toBe(0)
  })

  it('refuse a key already there (`add`) with its error, aborting what the transaction wrote before', async () => {
    const { dayTokens, dayDigests } = next()
    const write = db.transaction('rw', [dayTokens, dayDigests], async () => {
      await dayDigests.put({ connectionId: CONN, day: 9, records: [] })
      await writeUntracked(dayTokens, rowsOf([1, 2, 1]), 'add')
    })
    await expect(write).rejects.toMatchObject({ name: 'ConstraintError' })
    expect(await dayTokens.count()).toBe(0)
    expect(await dayDigests.count()).toBe(0)
  })

  it('refuse to write outside a transaction over the table, writing nothing', async () => {
    const { dayTokens, dayDigests } = next()
    await expect(writeUntracked(dayTokens, rowsOf([1]), 'add')).rejects.toThrow(/needs a transaction/)
    const elsewhere = db.transaction('rw', [dayDigests], () => writeUntracked(dayTokens, rowsOf([1]), 'add'))
    await expect(elsewhere).rejects.toThrow(/needs a transaction/)
    expect(await dayTokens.count()).toBe(0)
  })
})
