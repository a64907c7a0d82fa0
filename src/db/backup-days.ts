/**
 * Filing a restored history's day parts and day rows (digests, search tokens) and the charge list's day
 * parts while the file is read. A backup lists history and charges per connection in time order (backup-write.ts), so
 * each connection's UTC day comes whole, one after another: a day is filed as soon as the next one starts,
 * from the records just read, in the transaction of the page that completes it. Memory holds one day's
 * records and the days a page completed. A file in any other order (one written before, or edited) is
 * noticed at its first record out of order: nothing more is filed here (what the filer holds and every
 * later record are written as they come), and the restore files every day again afterwards, a day at a
 * time (stageDayRows), after emptying what was filed here.
 */
import { byTimeThenKey, searchDayOf } from './history-record'
import { byTimeThenId } from './repository-helpers'
import type { ChargeRecord, HistoryRecord } from '../domain/records'

interface Timed {
  connectionId: string
  createdAt: number
}

interface Day<R> {
  connectionId: string
  day: number
  records: R[]
}

/** A day's records as its time index reads them back: the order the index pass files them in. */
type DayOrder<R> = (records: R[]) => R[]

export class DayFiler<R extends Timed> {
  #current: Day<R> | null = null
  #done: R[][] = []
  /** What was read but not filed when the file left time order (nothing else holds them). */
  #held: R[] = []
  /** Each connection met so far, with the last day it started. */
  readonly #lastDay = new Map<string, number>()
  #inOrder = true

  constructor(private readonly order: DayOrder<R>) {}

  /** Whether every record so far came in its day's turn: while true, this filer's rows are complete. */
  get inOrder(): boolean {
    return this.#inOrder
  }

  /** Takes the next record of the file; false when it is not held here (the file left time order). */
  add(r: R): boolean {
    if (!this.#inOrder) return false
    const day = searchDayOf(r.createdAt)
    const current = this.#current
    if (current && current.connectionId === r.connectionId && current.day === day) {
      current.records.push(r)
      return true
    }
    const last = this.#lastDay.get(r.connectionId)
    // A day already started, or a connection left for another one: not the order the filer needs.
    if (last !== undefined && (day <= last || current?.connectionId !== r.connectionId)) {
      this.#inOrder = false
      this.#held = [...this.#done.flat(), ...(current?.records ?? [])]
      this.#current = null
      this.#done = []
      return false
    }
    this.end()
    this.#lastDay.set(r.connectionId, day)
    this.#current = { connectionId: r.connectionId, day, records: [r] }
    return true
  }

  /** The section ended: the day being read is complete. */
  end(): void {
    if (this.#current) this.#done.push(this.#current.records)
    this.#current = null
  }

  /**
   * The records of the days completed since the last call, each day in its time index's order, to be
   * filed in the transaction that writes the page completing them.
   */
  takeDays(): R[][] {
    const days = this.#done
    this.#done = []
    return days.map(this.order)
  }

  /** Once out of order: the records read in order and not yet filed (once; empty afterwards). */
  takeHeld(): R[] {
    const held = this.#held
    this.#held = []
    return held
  }
}

/** History's filer: a day's records by time, then key (a record twice is refused when it is written). */
export const historyDayFiler = (): DayFiler<HistoryRecord> =>
  new DayFiler<HistoryRecord>((records) => records.sort(byTimeThenKey))

/**
 * The charge list's filer: a charge listed twice in a day keeps its later copy, as a write by key does;
 * then by time, then id (the staged charges' time index order).
 */
export const chargeDayFiler = (): DayFiler<ChargeRecord> =>
  new DayFiler<ChargeRecord>((records) =>
    [...new Map(records.map((r) => [r.id, r])).values()].sort(byTimeThenId),
  )
