/**
 * History's day rows in a first sync's deferral (deferred-days.ts): a day's digest row, its summary and
 * its search token parts wait for a filing; the records themselves are in their parts from their commit.
 */
import type { Table } from 'dexie'
import type { HistoryRecord } from '../domain/records'
import {
  dayDigestRowsOf,
  putDigestRows,
  putDigests,
  storedDigestRows,
  type DigestTables,
} from './day-digests'
import { dayPartsRange, dayTokenRowsOf, putTokens, TOKEN_PART_SIZE } from './day-tokens'
import { deferredDaysKey, type DeferredKind } from './deferred-days'
import { searchDayOf, searchDayStart } from './history-record'
import { hasHistory, historyInRange } from './history-part-reads'
import type { HistoryTables } from './history-parts'
import type { StoredDayTokensRow } from './storage-rows'

/** The tables a refiling reads and writes. */
export type RefileTables = HistoryTables &
  DigestTables & { dayTokens: Table<StoredDayTokensRow, [string, number, number]> }

/**
 * Files `days` of a connection again from the records stored on them, in time order: digest row, summary
 * and token parts built from scratch (a day with no record loses its rows). In a transaction over the tables.
 */
export async function refileDays(
  tables: RefileTables,
  connectionId: string,
  days: readonly number[],
  tokenPartSize = TOKEN_PART_SIZE,
): Promise<void> {
  for (const day of days) {
    const records = await historyInRange(tables, connectionId, searchDayStart(day), searchDayStart(day + 1))
    await fileDayRows(tables, connectionId, day, records, tokenPartSize)
  }
}

/**
 * Files one day of a connection from `records`, every record stored on it: digest row, summary and token
 * parts built from scratch (no record: the day loses its rows). In a transaction over the tables.
 */
export async function fileDayRows(
  tables: Omit<RefileTables, keyof HistoryTables>,
  connectionId: string,
  day: number,
  records: readonly HistoryRecord[],
  tokenPartSize = TOKEN_PART_SIZE,
): Promise<void> {
  await tables.dayTokens
    .where('[connectionId+day+part]')
    .between(...dayPartsRange(connectionId, day))
    .delete()
  if (records.length === 0) {
    await tables.dayDigests.delete([connectionId, day])
    await tables.daySummaries.delete([connectionId, day])
    return
  }
  await putDigestRows(tables, dayDigestRowsOf(records))
  await tables.dayTokens.bulkPut(dayTokenRowsOf(records, tokenPartSize))
}

/** History as a kind of deferred record: its days' digests, summaries and token parts wait. */
export function deferredHistory(tables: RefileTables, tokenPartSize: number): DeferredKind<HistoryRecord> {
  return {
    settingKey: deferredDaysKey,
    keyOf: (r) => r.key,
    dayOf: (r) => searchDayOf(r.createdAt),
    holdsNone: async (connectionId) => !(await hasHistory(tables, connectionId)),
    fileHeld: async (connectionId, records) => {
      const digests = await storedDigestRows(tables.dayDigests, connectionId, records)
      await putDigests(tables, connectionId, records, digests)
      await putTokens(tables.dayTokens, connectionId, records, tokenPartSize)
    },
    refile: (connectionId, days) => refileDays(tables, connectionId, days, tokenPartSize),
  }
}
