/**
 * What every schema version step is (database.ts registers them in order): its version, the FULL stores
 * object of that version (not a spread of the previous one, so reading one file tells the whole schema),
 * and the upgrade that converts a cache of the version before. Each step file is frozen once released: it
 * carries its own copy of the row shaping it needs and imports nothing from today's src/db modules, so a
 * later change to how the app shapes rows never changes what opening an old cache writes.
 */
import type { Transaction } from 'dexie'

/** How far an upgrade is: `done` of `total` rows of the step's main pass (total 0: not counted yet). */
export interface MigrationProgress {
  version: number
  done: number
  total: number
}

export type ReportMigrationProgress = (progress: MigrationProgress) => void

export interface MigrationStep {
  version: number
  /** Every table of this version with its indexes; null drops a table of the previous version. */
  stores: Readonly<Record<string, string | null>>
  upgrade?: (tx: Transaction, report: ReportMigrationProgress) => Promise<void>
}

/** Rows per read of a pass over a table: a few MB of history records at a time. */
export const PASS_PAGE_SIZE = 2000
let pageSize = PASS_PAGE_SIZE

/** Lets tests run a pass over several pages of a small table. */
export function setPassPageSizeForTests(size: number = PASS_PAGE_SIZE): void {
  pageSize = size
}

/**
 * Reads every row of `table` in primary-key order, PASS_PAGE_SIZE at a time, and gives each page to
 * `visit`, reporting progress after each. One getAll per page instead of a cursor step per row: in
 * Chromium each cursor step is a round trip to the storage process, which made a pass over 500k records
 * take minutes. Mechanism only: it never shapes a row, so it may stay shared by the frozen steps.
 */
export async function forEachPage<Row>(
  tx: Transaction,
  table: string,
  primaryKeyOf: (row: Row) => unknown,
  visit: (rows: Row[]) => void | Promise<void>,
  report: (done: number, total: number) => void,
): Promise<void> {
  const store = tx.table<Row>(table)
  const total = await store.count()
  let done = 0
  report(done, total)
  let page = await store.orderBy(':id').limit(pageSize).toArray()
  while (page.length > 0) {
    await visit(page)
    done += page.length
    report(done, total)
    if (page.length < pageSize) break
    const last = primaryKeyOf(page[page.length - 1] as Row)
    page = await store
      .where(':id')
      .above(last as string)
      .limit(pageSize)
      .toArray()
  }
}
