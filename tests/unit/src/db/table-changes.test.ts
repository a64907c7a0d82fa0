import { afterEach, describe, expect, it } from 'vitest'
import { watchTables } from '../../../../src/db/table-changes'
import { openDb } from './fixtures'

/** Dexie fires the storage-mutated event after the commit, on a later tick. */
const settled = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 20))

describe('watchTables', () => {
  const stops: (() => void)[] = []
  afterEach(() => stops.splice(0).forEach((stop) => stop()))

  it('calls back on a write to a watched table and not on a write to another one', async () => {
    const db = openDb('table-changes-tables')
    await db.open()
    let calls = 0
    stops.push(watchTables(db, ['imports'], () => calls++))
    await db.settings.put({ key: 'anything', value: 1 })
    await settled()
    expect(calls).toBe(0)
    await db.imports.clear()
    await settled()
    expect(calls).toBe(1)
    db.close()
  })

  it('watches only the settings keys asked for: a column width saved leaves payout results as they are', async () => {
    const db = openDb('table-changes-keys')
    await db.open()
    let calls = 0
    stops.push(watchTables(db, [{ table: 'settings', keyPrefixes: ['payoutReadings:'] }], () => calls++))
    await db.settings.put({ key: 'ledgerColumnWidths', value: { store: 160 } })
    await db.settings.put({ key: 'payoutReadingsX', value: 1 })
    await settled()
    expect(calls).toBe(0)
    await db.settings.put({ key: 'payoutReadings:c1', value: {} })
    await settled()
    expect(calls).toBe(1)
    await db.settings.delete('payoutReadings:c1')
    await settled()
    expect(calls).toBe(2)
    // A write of many rows at once, or a clear, names no keys: it counts as touching every key.
    await db.settings.bulkPut(Array.from({ length: 60 }, (_, i) => ({ key: `other:${i}`, value: i })))
    await db.settings.clear()
    await settled()
    expect(calls).toBeGreaterThanOrEqual(3)
    db.close()
  })

  it('hears a generation table written in either slot: the live one may be the alternate after a restore', async () => {
    const db = openDb('table-changes-slots')
    await db.open()
    let calls = 0
    stops.push(watchTables(db, ['chargeParts'], () => calls++))
    const part = { connectionId: 'c', day: 1, part: 0, charges: [] }
    await db.generationTables(1).chargeParts.put(part)
    await settled()
    expect(calls).toBe(1)
    await db.generationTables(0).chargeParts.put(part)
    await settled()
    expect(calls).toBe(2)
    db.close()
  })
})
