/**
 * The walks of a field or reconciled filter over the day digests (`dayDigests`, day-digests.ts): which
 * digests match, visited a month at a time or read a few days at a time until a page is in hand. Reads
 * only; callers run them inside a transaction that includes dayDigests and markDays.
 */
import type { ClosebookDb } from './database'
import { byTimeThenKey, searchDayOf } from './history-record'
import { dayRowBatches } from './day-digests'
import { fieldTests, nextBatch, type HistoryFilter } from './history-filter'
import { MarksRepository } from './marks-repository'
import type { RecordDigest, RecordKey } from '../domain/records'

/** Day digest rows read per request when walking a filter's digests (a month's worth). */
const DIGEST_BATCH_DAYS = 31
/**
 * Day digest rows the first request of a page's walk reads; later requests read as many as the matches
 * per day so far say the page still needs (a common value fills a page in a day, a rare one reads on).
 */
const DIGEST_FIRST_DAYS = 2

/** Keys of the reconciled records of the filter's days (a few outside its range: a key test only). */
export async function reconciledKeys(db: ClosebookDb, filter: HistoryFilter): Promise<Set<RecordKey>> {
  const marks = await new MarksRepository(db).overlapping(filter.connectionId, filter.from, filter.to)
  return new Set(marks.filter((m) => m.state === 'reconciled').map((m) => m.key))
}

/** The reconciled filter as a key test; null when the filter has no reconciled state to test. */
export async function reconciledTest(
  db: ClosebookDb,
  filter: HistoryFilter,
): Promise<((key: RecordKey) => boolean) | null> {
  if (filter.reconciled !== 'reconciled' && filter.reconciled !== 'unreconciled') return null
  const reconciled = await reconciledKeys(db, filter)
  const want = filter.reconciled === 'reconciled'
  return (key) => reconciled.has(key) === want
}

/** What a digest must pass to match the filter: its range, equality fields, brand and reconciled state. */
export async function digestTest(
  db: ClosebookDb,
  filter: HistoryFilter,
): Promise<(d: RecordDigest) => boolean> {
  const { from, to } = filter
  const tests = fieldTests(filter)
  const keyTest = await reconciledTest(db, filter)
  return (d) =>
    d.createdAt >= from &&
    d.createdAt < to &&
    tests.every((t) => t(d)) &&
    (keyTest === null || keyTest(d.key))
}

/**
 * Visits, oldest first, the digest of every record the filter matches (range, equality fields, brand,
 * reconciled; not text search, not the changed filter). Reads the day rows a month at a time, so
 * memory stays bounded over all periods. In a transaction that includes dayDigests and markDays.
 */
export async function eachDigest(
  db: ClosebookDb,
  filter: HistoryFilter,
  visit: (d: RecordDigest, day: number) => void,
): Promise<void> {
  const { connectionId, from, to } = filter
  if (!(to > from)) return
  const matches = await digestTest(db, filter)
  const days = { lo: searchDayOf(from), hi: searchDayOf(to - 1), desc: false }
  for await (const rows of dayRowBatches(db.dayDigests, connectionId, days, () => DIGEST_BATCH_DAYS))
    for (const row of rows) for (const d of row.records) if (matches(d)) visit(d, row.day)
}

/**
 * The digests a field filter matches, in `order`, read a few days at a time until at least `need` are
 * in hand or the range ends. A day's row is whole, and its matches are sorted, so the first `need` hits
 * are exactly the first `need` matches (as searchHits does with token rows).
 */
export async function digestHits(
  db: ClosebookDb,
  filter: HistoryFilter,
  order: 'asc' | 'desc',
  need: number,
  startDay?: number,
): Promise<RecordDigest[]> {
  const { connectionId, from, to } = filter
  if (!(to > from) || need <= 0) return []
  const matches = await digestTest(db, filter)
  const desc = order === 'desc'
  const hits: RecordDigest[] = []
  let batch = need === Infinity ? DIGEST_BATCH_DAYS : DIGEST_FIRST_DAYS
  let daysRead = 0
  const days = { lo: searchDayOf(from), hi: searchDayOf(to - 1), desc }
  if (startDay !== undefined && desc) days.hi = Math.min(days.hi, startDay)
  if (startDay !== undefined && !desc) days.lo = Math.max(days.lo, startDay)
  for await (const rows of dayRowBatches(db.dayDigests, connectionId, days, () => batch)) {
    for (const row of rows) {
      const dayHits = row.records.filter(matches)
      dayHits.sort(byTimeThenKey)
      if (desc) dayHits.reverse()
      for (const d of dayHits) hits.push(d)
    }
    if (hits.length >= need) break
    daysRead += rows.length
    batch = nextBatch(hits.length, need, daysRead, batch, DIGEST_BATCH_DAYS)
  }
  return hits
}
