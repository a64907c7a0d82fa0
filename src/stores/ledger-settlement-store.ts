/**
 * The ledger grid's "Settled" column: where each shown record's money stands in the payouts, read for
 * the rows the grid asks about (a batch per tick) and kept until a write to what it is read from (ledger
 * links, payouts, bank lines, settings) makes it stale. Display only: sorting or filtering by it would
 * need the state of every record of the history, which nothing stores.
 */
import { defineStore } from 'pinia'
import { shallowRef } from 'vue'
import { appCache } from '../db/cache'
import type { ClosebookDb } from '../db/database'
import { watchTables, type WatchedInput } from '../db/table-changes'
import type { HistoryRecord } from '../domain/records'
import { TIE_INPUTS } from './deposit-tie'
import { readSettlements, type Settlement } from './record-details'

/** A settlement is read from the deposit tie-out and from each record's ledger link. */
const INPUTS: readonly WatchedInput[] = [
  ...TIE_INPUTS,
  'ledgerLinks',
  // A charge's ledger link is written with its charge part (ledger-links.ts).
  'chargeParts',
]

const keyOf = (r: HistoryRecord): string => `${r.connectionId}\u0001${r.key}`

export const useLedgerSettlementStore = defineStore('ledgerSettlement', () => {
  /** Per connection and record: its settlement, null when its ledger is not known. */
  const states = shallowRef(new Map<string, Settlement | null>())
  const pending = new Map<string, HistoryRecord>()
  let scheduled = false
  let watchedDb: ClosebookDb | null = null
  let generation = 0

  function watch(): void {
    const db = appCache().db
    if (watchedDb === db) return
    watchedDb = db
    watchTables(db, INPUTS, () => {
      generation++
      states.value = new Map()
    })
  }

  /** The record's settlement; undefined while it is being read (the grid shows nothing yet). */
  function settlementOf(r: HistoryRecord): Settlement | null | undefined {
    watch()
    const key = keyOf(r)
    if (states.value.has(key)) return states.value.get(key)
    pending.set(key, r)
    if (!scheduled) {
      scheduled = true
      queueMicrotask(() => void flush())
    }
    return undefined
  }

  async function flush(): Promise<void> {
    scheduled = false
    const batch = [...pending.values()]
    pending.clear()
    const started = generation
    const byConnection = new Map<string, HistoryRecord[]>()
    for (const r of batch) byConnection.set(r.connectionId, [...(byConnection.get(r.connectionId) ?? []), r])
    const next = new Map(states.value)
    for (const [connectionId, records] of byConnection) {
      try {
        const read = await readSettlements(connectionId, records)
        for (const r of records) next.set(keyOf(r), read.get(r.key) ?? null)
      } catch (e) {
        // The cell stays empty; the record's details pane reads it again and shows any error.
        console.warn('settlement not read', e)
      }
    }
    // A write while reading made this batch stale: the next render asks again.
    if (started === generation) states.value = next
  }

  return { settlementOf }
})
