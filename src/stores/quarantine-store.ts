/**
 * The items sync set aside (src/db/quarantine-repository.ts) as the UI sees them: the list for one
 * connection, "fetch again" one at a time, and what came of it.
 */
import { defineStore } from 'pinia'
import { ref, shallowRef } from 'vue'
import { appCache } from '../db/cache'
import { QuarantineRepository, type QuarantineRecord } from '../db/quarantine-repository'
import { desktopApi } from '../platform'
import { CacheSyncStore } from '../sync/cache-sync-store'
import { fetchQuarantinedAgain, type RefetchOutcome } from '../sync/quarantine-refetch'

export const useQuarantineStore = defineStore('quarantine', () => {
  const connectionId = ref<string | null>(null)
  const rows = shallowRef<QuarantineRecord[]>([])
  /** The connection whose rows `rows` holds (kept while they are read again). */
  const rowsFor = ref<string | null>(null)
  /** The same, once read and while no read is under way. */
  const loadedFor = ref<string | null>(null)
  /** The row being fetched again, if any. */
  const fetching = ref<string | null>(null)
  const lastOutcome = ref<{ id: string; result: RefetchOutcome } | null>(null)
  const error = ref<string | null>(null)

  async function load(id: string): Promise<void> {
    connectionId.value = id
    loadedFor.value = null
    const list = await new QuarantineRepository(appCache().db).list(id)
    // Another connection may have been chosen meanwhile.
    if (connectionId.value === id) {
      rows.value = list
      rowsFor.value = id
      loadedFor.value = id
    }
  }

  /** How many set-aside items of a connection fall in a month of the accounting time zone. */
  function countForMonth(id: string, month: string, timeZone: string): Promise<number> {
    return new QuarantineRepository(appCache().db).countForMonth(id, month, timeZone)
  }

  async function fetchAgain(row: QuarantineRecord): Promise<void> {
    if (fetching.value !== null) return
    fetching.value = row.id
    error.value = null
    lastOutcome.value = null
    try {
      const api = desktopApi()
      const result = await fetchQuarantinedAgain(
        { listPage: (args) => api.api.listPage(args) },
        new CacheSyncStore(appCache().db),
        row,
      )
      lastOutcome.value = { id: row.id, result }
      await load(row.connectionId)
    } catch (e) {
      error.value = e instanceof Error ? e.message : String(e)
    } finally {
      fetching.value = null
    }
  }

  return {
    connectionId,
    rows,
    rowsFor,
    loadedFor,
    fetching,
    lastOutcome,
    error,
    load,
    countForMonth,
    fetchAgain,
  }
})
