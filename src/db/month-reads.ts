/**
 * A period's whole records read a UTC day at a time, for readers that go through a month once (the month
 * workbook): each day is read by the repositories' own range reads (the union of day parts and older rows),
 * the next day asked for while the caller works on the last, so at most two days are held here.
 */
import type { ClosebookDb } from './database'
import { searchDayBounds, searchDayOf } from './history-record'
import { refundsInWindow, type RefundRef } from './history-part-reads'
import { readAhead } from './read-ahead'

export type { RefundRef } from './history-part-reads'

/** [from, to) cut at UTC day boundaries, oldest first; an empty range gives none. */
export function daySlices(from: number, to: number): [number, number][] {
  if (!(to > from)) return []
  const slices: [number, number][] = []
  for (let day = searchDayOf(from); day <= searchDayOf(to - 1); day++) {
    const [start, end] = searchDayBounds(day)
    slices.push([Math.max(from, start), Math.min(to, end)])
  }
  return slices
}

async function* eachSlice<T>(
  slices: readonly [number, number][],
  read: (from: number, to: number) => Promise<T[]>,
): AsyncGenerator<T[]> {
  for (const [from, to] of slices) yield await read(from, to)
}

/**
 * What `read(from, to)` gives for the whole range, a UTC day at a time and in the same order, provided
 * `read` gives a range's records oldest first: the days are disjoint and in order. Days without records
 * are skipped.
 */
export async function* byDay<T>(
  from: number,
  to: number,
  read: (from: number, to: number) => Promise<T[]>,
): AsyncGenerator<T[]> {
  for await (const day of readAhead(eachSlice(daySlices(from, to), read))) if (day.length > 0) yield day
}

/** The refunds created in [from, to) with their charge ids: index keys (and older rows), no day part read. */
export function refundRefsInRange(
  db: ClosebookDb,
  connectionId: string,
  from: number,
  to: number,
): Promise<RefundRef[]> {
  return db.transaction('r', db.historyRecordTables(), () => refundsInWindow(db, connectionId, from, to))
}
