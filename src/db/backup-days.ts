/**
 * Filing a restored history's day rows (digests, search tokens) while the file is read. A backup lists
 * history in time order (backup-write.ts), so each connection's UTC day comes whole, one after another:
 * a day is filed as soon as the next one starts, from the records just read, in the transaction of the
 * page that completes it. Memory holds one day's records and the days a page completed. A file in any
 * other order (one written before, or edited) is noticed at its first record out of order: nothing more is
 * filed here, and the restore files every day again afterwards, reading the records back through their
 * time index (stageDayRows), after emptying what was filed here.
 */
import { byTimeThenKey, searchDayOf } from './history-record'
import type { HistoryRecord } from '../domain/records'

interface Day {
  connectionId: string
  day: number
  records: HistoryRecord[]
}

export class HistoryDayFiler {
  #current: Day | null = null
  #done: HistoryRecord[][] = []
  /** Each connection met so far, with the last day it started. */
  readonly #lastDay = new Map<string, number>()
  #inOrder = true

  /** Whether every record so far came in its day's turn: while true, this filer's rows are complete. */
  get inOrder(): boolean {
    return this.#inOrder
  }

  /** Takes the next history record of the file. */
  add(r: HistoryRecord): void {
    if (!this.#inOrder) return
    const day = searchDayOf(r.createdAt)
    const current = this.#current
    if (current && current.connectionId === r.connectionId && current.day === day) {
      current.records.push(r)
      return
    }
    const last = this.#lastDay.get(r.connectionId)
    // A day already started, or a connection left for another one: not the order the filer needs.
    if (last !== undefined && (day <= last || current?.connectionId !== r.connectionId)) {
      this.#inOrder = false
      this.#current = null
      this.#done = []
      return
    }
    this.end()
    this.#lastDay.set(r.connectionId, day)
    this.#current = { connectionId: r.connectionId, day, records: [r] }
  }

  /** The history section ended: the day being read is complete. */
  end(): void {
    if (this.#current) this.#done.push(this.#current.records)
    this.#current = null
  }

  /**
   * The records of the days completed since the last call, each day in time-then-key order (the order
   * its time index reads them in), to be filed in the transaction that writes the page completing them.
   */
  takeDays(): HistoryRecord[][] {
    const days = this.#done
    this.#done = []
    for (const records of days) records.sort(byTimeThenKey)
    return days
  }
}
