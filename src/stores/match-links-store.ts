/**
 * The imported rows that marks link to, for showing a record's links (ledger "Matched to" column, record
 * details, audit log). Imported files are the accountant's own downloads (thousands of lines, not the
 * cache's hundreds of thousands), so a connection's rows are read once and kept until an import changes.
 */
import { defineStore } from 'pinia'
import { shallowRef } from 'vue'
import { appCache } from '../db/cache'
import { ImportsRepository } from '../db/imports-repository'
import { describeMatchRef, rowIdOf, type LinkDescription, type LinkedRow } from '../reconcile/match-links'

export const useMatchLinksStore = defineStore('matchLinks', () => {
  const rows = shallowRef(new Map<string, LinkedRow>())
  let loadedFor: string | null = null
  let loading: Promise<void> | null = null

  /** Reads the connection's imported rows (again when `force`, e.g. after an import was added or removed). */
  async function load(connectionId: string, force = false): Promise<void> {
    if (!force && loadedFor === connectionId) return loading ?? undefined
    loadedFor = connectionId
    loading = (async () => {
      const linked = await new ImportsRepository(appCache().db).linkedRows(connectionId)
      const next = new Map(linked.map((r) => [rowIdOf(r), r]))
      if (loadedFor === connectionId) rows.value = next
    })()
    return loading
  }

  function describe(matchRef: string | null | undefined): LinkDescription[] {
    return matchRef ? describeMatchRef(matchRef, rows.value) : []
  }

  return { rows, load, describe }
})
