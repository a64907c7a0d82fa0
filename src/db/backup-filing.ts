/**
 * What pass two files beside each page it writes: the history days and charge days the file's order shows
 * complete (backup-days.ts). History is written to the next generation's parts whatever the order: while
 * the file is in time order a whole day at a time, once it leaves it each page's records as they come
 * (packed with their days after the read, which also files their day rows again). The charge list is
 * not, so when its part of the file leaves time order the charges filed so far move to the staging
 * table, with every later charge, for the index pass to file.
 */
import type { Row } from './backup-read'
import type { BackupTableName } from './backup'
import { chargeDayFiler, historyDayFiler } from './backup-days'
import type { ClosebookDb, GenerationTables } from './database'
import { HistoryWriter } from './history-writer'
import type { ChargeRecord, HistoryRecord } from '../domain/records'

/** Day parts moved back to staging per transaction: memory holds one batch. */
const MOVE_PARTS = 50

/** What a page's transaction writes beside its rows. */
export interface PageFiling {
  /** Whole history days, to file in parts built from scratch, with their day digests and tokens. */
  history: HistoryRecord[][]
  /** History records read out of time order, to file in parts of their own (no day rows yet). */
  looseHistory: HistoryRecord[]
  /** The file line each history record of this page's filing was read from. */
  lineOf: (record: HistoryRecord) => number
  /** Whole charge days, to file in the next generation's charge days and parts. */
  charges: ChargeRecord[][]
  /** Charges for the staging table, filed after the read (a file whose charges are not in time order). */
  stagedCharges: ChargeRecord[]
}

/** A page that files nothing beside its rows. */
export const NO_FILING: PageFiling = {
  history: [],
  looseHistory: [],
  lineOf: () => 0,
  charges: [],
  stagedCharges: [],
}

/** Empties the next generation's charge days, every charge filed in them moved to the staging table. */
async function moveFiledCharges(db: ClosebookDb, next: GenerationTables): Promise<void> {
  const staged = db.staged('charges')
  const tables = { chargeDays: next.chargeDays, chargeParts: next.chargeParts }
  const writer = new HistoryWriter(db)
  for (let done = false; !done;) {
    done = await db.transaction('rw', [...Object.values(tables), staged], async () => {
      const taken = await writer.takeFreshCharges(tables, MOVE_PARTS)
      await staged.bulkPut(taken.charges)
      return taken.done
    })
  }
}

/** The day filing of one restore's read: takes each row, and says what each page files with it. */
export class ReadFiling {
  readonly #historyFiler = historyDayFiler()
  readonly #chargeFiler = chargeDayFiler()
  /** Charges read since the file left time order, for the next page's staging. */
  #unfiled: ChargeRecord[] = []
  /** History read since the file left time order, for the next page's loose parts. */
  #looseHistory: HistoryRecord[] = []
  /** The line of each history record not filed yet (dropped with the record). */
  readonly #lines = new WeakMap<HistoryRecord, number>()
  readonly #lineOf = (r: HistoryRecord): number => this.#lines.get(r) ?? 0
  #moved = false

  /** Whether the history's day rows were all filed while reading. */
  get historyFiled(): boolean {
    return this.#historyFiler.inOrder
  }

  /** Whether the charges were all filed in their day parts while reading (none are staged). */
  get chargesFiled(): boolean {
    return this.#chargeFiler.inOrder
  }

  /** Takes the next row of the file, read from `line`. */
  add(row: Row, line: number): void {
    if (row.table === 'history') {
      this.#lines.set(row.record, line)
      // A record the filer does not hold (the file left time order) goes in the next page's loose parts.
      if (!this.#historyFiler.add(row.record)) this.#looseHistory.push(row.record)
    }
    if (row.table !== 'charges') return
    // A charge the filer does not hold (the file left time order) waits for the next page's staging.
    const held = this.#chargeFiler.add(row.record)
    if (!held) this.#unfiled.push(row.record)
  }

  /**
   * What the page of `table` files in its transaction (`ending`: the page is the table's last, so the day
   * being read is complete). The first page after the charges left time order first moves what was filed
   * to staging, in transactions of its own (a stop there leaves rows the next restore's begin empties).
   */
  async take(
    db: ClosebookDb,
    next: GenerationTables,
    table: BackupTableName,
    ending: boolean,
  ): Promise<PageFiling> {
    if (table === 'history') {
      if (ending) this.#historyFiler.end()
      const lineOf = this.#lineOf
      if (this.#historyFiler.inOrder) return { ...NO_FILING, history: this.#historyFiler.takeDays(), lineOf }
      const looseHistory = [...this.#historyFiler.takeHeld(), ...this.#looseHistory]
      this.#looseHistory = []
      return { ...NO_FILING, looseHistory, lineOf }
    }
    if (table !== 'charges') return NO_FILING
    if (ending) this.#chargeFiler.end()
    if (this.#chargeFiler.inOrder) return { ...NO_FILING, charges: this.#chargeFiler.takeDays() }
    if (!this.#moved) await moveFiledCharges(db, next)
    this.#moved = true
    const stagedCharges = [...this.#chargeFiler.takeHeld(), ...this.#unfiled]
    this.#unfiled = []
    return { ...NO_FILING, stagedCharges }
  }
}
