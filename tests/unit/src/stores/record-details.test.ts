import { createPinia, setActivePinia } from 'pinia'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { ClosebookDb } from '../../../../src/db/database'
import type { RecordKey } from '../../../../src/domain/records'
import { useLedgerStore } from '../../../../src/stores/ledger-store'
import { readRecordDetails } from '../../../../src/stores/record-details'
import { closeLedgerCache, openLedgerCache } from './ledger-cache'

let db: ClosebookDb

beforeEach(async () => {
  ;({ db } = await openLedgerCache(3))
  setActivePinia(createPinia())
})
afterEach(() => closeLedgerCache(db))

describe('what the details pane and the audit page read, through stores', () => {
  it("reads a record's charge group, its audit trail newest first, and its mark", async () => {
    const ledger = useLedgerStore()
    await ledger.init()
    const record = ledger.rows.get(0)
    if (!record) throw new Error('no row 0')
    expect(await readRecordDetails(record)).toMatchObject({ trail: [], changedSinceReconciled: false })

    ledger.select(0, 'only')
    await ledger.applyMarks('mark', 'selection', 'first')
    await ledger.applyMarks('note', 'selection', 'second')
    const details = await readRecordDetails(record)
    expect(details.related.map((r) => r.key)).toEqual([record.key])
    expect(details.charge).toBeNull()
    expect(details.trail.map((e) => e.action)).toEqual(['note', 'mark'])
    expect(details.changedSinceReconciled).toBe(false)
  })

  it('names the records of an audit page that still exist, by key', async () => {
    const ledger = useLedgerStore()
    await ledger.init()
    const keys = [0, 2].map((i) => ledger.rows.get(i)?.key as RecordKey)
    const found = await ledger.recordsByKey([...keys, 'charge:gone'])
    expect([...found.keys()].sort()).toEqual([...keys].sort())
    expect(await ledger.recordsByKey([])).toEqual(new Map())
  })
})
