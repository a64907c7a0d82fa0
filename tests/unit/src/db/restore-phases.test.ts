/**
 * A restore writes the next generation and only its switch makes it live. Stopped at any phase before the
 * switch commits (an error, or the process killed and the page reloaded), the cache reads exactly what it
 * read before; the next restore succeeds and empties what the stopped one left. After the switch, the old
 * generation is emptied in the background, and again when the cache opens if that was interrupted.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { cleanOldGeneration, restoreBackupFile, type RestoreFaults } from '../../../../src/db/backup-stream'
import { STAGING_OWNER_KEY } from '../../../../src/db/backup-generation'
import type { ClosebookDb, IndexedDbDeps } from '../../../../src/db/database'
import { HistoryRepository } from '../../../../src/db/history-repository'
import { chargeRecordOf } from '../../../../src/db/charge-record'
import { HistoryWriter } from '../../../../src/db/history-writer'
import { CONN, T0, chargeItem, freshDeps, openDb } from './fixtures'
import { backupText, everyTable, fillCache, leftoverRows } from './backup-support'

let deps: IndexedDbDeps
let source: ClosebookDb
let target: ClosebookDb
let file: Blob

/** What the ledger answers through the repository: every record, and a count through the day digests. */
async function ledger(db: ClosebookDb): Promise<string[]> {
  const repo = new HistoryRepository(db, () => '')
  const all = { connectionId: CONN, from: 0, to: Number.MAX_SAFE_INTEGER }
  const rows = await repo.queryAll(all)
  const charges = await repo.count({ ...all, type: 'charge' })
  return [...rows.map((r) => `${r.key} ${r.amount} ${r.currency}`), `charges: ${charges}`]
}

/** The cache after a restore of `file` into an empty one: what every successful restore must equal. */
async function freshRestore(): Promise<string> {
  const fresh = openDb('fresh')
  try {
    await (
      await restoreBackupFile(fresh, file, { pageRows: 2 })
    ).cleanup
    return await backupText(fresh)
  } finally {
    fresh.close()
  }
}

beforeEach(async () => {
  deps = freshDeps()
  source = openDb('source')
  target = openDb('target', deps)
  await fillCache(source, 100, 9, 'en')
  // A charge on a later day: the file's charges span days, so their order can be broken.
  const writer = new HistoryWriter(source)
  await source.transaction('rw', writer.chargeTables(), () =>
    writer.putCharges([chargeRecordOf(CONN, chargeItem(200), T0)]),
  )
  await fillCache(target, 1, 4, 'ja')
  file = new Blob([await backupText(source)])
})
afterEach(() => {
  source.close()
  target.close()
})

/** `text` with its history and charges each listed backwards: a file the restore files after reading. */
function outOfOrder(text: string): string {
  const lines = text.split('\n')
  const sections = ['history', 'charges'].map((table) => {
    const start = lines.findIndex((l) => l.startsWith(`{"table":"${table}"`)) + 1
    return { start, end: lines.findIndex((l, i) => i >= start && l.startsWith('{"table":')) }
  })
  for (const { start, end } of sections)
    lines.splice(start, end - start, ...lines.slice(start, end).reverse())
  return lines.join('\n')
}

/**
 * Each phase a restore can stop in before its switch commits, as the fault that stops it there; the
 * phases that file day rows after reading stop a restore of a file whose records are not in time order.
 */
const PHASES: [string, (stop: () => never) => RestoreFaults, ((text: string) => string)?][] = [
  [
    'reading the records',
    (stop) => {
      let pages = 0
      return { beforeStagePage: (t) => void (t === 'history' && ++pages === 2 && stop()) }
    },
  ],
  ['reading the marks', (stop) => ({ beforeStagePage: (t) => void (t === 'marks' && stop()) })],
  ['reading the audit log', (stop) => ({ beforeStagePage: (t) => void (t === 'audit' && stop()) })],
  ['reading the settings', (stop) => ({ beforeStagePage: (t) => void (t === 'settings' && stop()) })],
  ['reading the charges', (stop) => ({ beforeStagePage: (t) => void (t === 'charges' && stop()) })],
  ['filing day rows after reading', (stop) => ({ afterIndexDay: () => stop() }), outOfOrder],
  [
    'filing charge days after reading',
    (stop) => ({ afterIndexDay: (t) => void (t.endsWith('chargeDays') && stop()) }),
    outOfOrder,
  ],
  [
    'switching, after a copied table',
    (stop) => ({ afterSwitchTable: (t) => void (t === 'locks' && stop()) }),
  ],
  [
    'switching, after moving the generation',
    (stop) => ({ afterSwitchTable: (t) => void (t === 'liveGeneration' && stop()) }),
  ],
]

describe('a restore stopped before its switch commits', () => {
  it.each(PHASES)(
    'by an error while %s: the cache reads as before, the next restore succeeds',
    async (_, at, edit) => {
      if (edit) file = new Blob([edit(await file.text())])
      const before = await everyTable(target)
      const answers = await ledger(target)
      const stop = (): never => {
        throw new Error('stopped')
      }
      await expect(restoreBackupFile(target, file, { pageRows: 2, faults: at(stop) })).rejects.toThrow()
      expect(await everyTable(target)).toEqual(before)
      expect(await ledger(target)).toEqual(answers)
      expect(await leftoverRows(target)).toBe(0)

      await (
        await restoreBackupFile(target, file, { pageRows: 2 })
      ).cleanup
      expect(await backupText(target)).toBe(await freshRestore())
    },
  )

  it.each(PHASES)(
    'by a kill while %s: the reloaded cache reads as before; the next restore cleans up',
    async (_, at, edit) => {
      if (edit) file = new Blob([edit(await file.text())])
      const before = await everyTable(target)
      const answers = await ledger(target)
      // A killed process runs no cleanup: the connection goes away with the restore's rows left behind.
      const kill = (): never => {
        target.close()
        throw new Error('killed')
      }
      await expect(restoreBackupFile(target, file, { pageRows: 2, faults: at(kill) })).rejects.toThrow()
      target = openDb('target', deps)
      expect(await leftoverRows(target)).toBeGreaterThan(0)
      expect(await everyTable(target)).toEqual(before)
      expect(await ledger(target)).toEqual(answers)
      // The app's cleanup at open leaves a stopped restore's rows to the next restore.
      expect(await cleanOldGeneration(target)).toBe(false)
      expect(await everyTable(target)).toEqual(before)

      await (
        await restoreBackupFile(target, file, { pageRows: 2 })
      ).cleanup
      expect(await backupText(target)).toBe(await freshRestore())
      expect(await leftoverRows(target)).toBe(0)
    },
  )
})

describe('after the switch', () => {
  it('the old generation is emptied in the background and the cache reads only the new one', async () => {
    const { cleanup } = await restoreBackupFile(target, file, { pageRows: 2 })
    expect(await backupText(target)).toBe(await freshRestore())
    expect(await cleanup).toBe(true)
    expect(await target.storedGeneration()).toEqual({ id: 'live', generation: 1, cleanup: false })
    expect(await leftoverRows(target)).toBe(0)
    // A second restore writes the first slot again and moves the generation back to it.
    await (
      await restoreBackupFile(target, file, { pageRows: 2 })
    ).cleanup
    expect((await target.storedGeneration()).generation).toBe(2)
    expect(await backupText(target)).toBe(await freshRestore())
    expect(await leftoverRows(target)).toBe(0)
  })

  it('a kill before the old generation was emptied: the reloaded cache reads the new one and empties the old', async () => {
    const kill = (): never => {
      target.close()
      throw new Error('killed')
    }
    await expect(
      restoreBackupFile(target, file, { pageRows: 2, faults: { afterSwitch: kill } }),
    ).rejects.toThrow()
    target = openDb('target', deps)
    expect(await target.storedGeneration()).toEqual({ id: 'live', generation: 1, cleanup: true })
    expect(await backupText(target)).toBe(await freshRestore())
    expect(await leftoverRows(target)).toBeGreaterThan(0)
    expect(await cleanOldGeneration(target)).toBe(true)
    expect(await leftoverRows(target)).toBe(0)
    expect(await backupText(target)).toBe(await freshRestore())
  })

  it('the cleanup leaves the other slot alone while a restore owns it', async () => {
    await (
      await restoreBackupFile(target, file, { pageRows: 2 })
    ).cleanup
    await target.liveGeneration.put({ id: 'live', generation: 1, cleanup: true })
    await target.staged('settings').put({ key: STAGING_OWNER_KEY, value: 'another tab' })
    await target.generationTables(2).historyParts.put((await target.historyParts.toArray())[0]!)
    expect(await cleanOldGeneration(target)).toBe(false)
    expect(await target.generationTables(2).historyParts.count()).toBe(1)
  })

  it('a tab that missed a switch and starts a restore never empties the live generation', async () => {
    // A tab without the channel (or that missed its message) still believes generation 0 is live.
    vi.stubGlobal('BroadcastChannel', undefined)
    const stale = openDb('target', deps)
    vi.unstubAllGlobals()
    try {
      await stale.open()
      await (
        await restoreBackupFile(target, file, { pageRows: 2 })
      ).cleanup
      const after = await everyTable(target)
      const stop = (): never => {
        throw new Error('stopped')
      }
      const faults = { beforeStagePage: (t: string) => void (t === 'marks' && stop()) }
      await expect(restoreBackupFile(stale, file, { pageRows: 2, faults })).rejects.toThrow()
      expect(await everyTable(target)).toEqual(after)
      expect(await everyTable(stale)).toEqual(after)
    } finally {
      stale.close()
    }
  })

  it('another tab of the same cache reads the new generation once the switch is told', async () => {
    const other = openDb('target', deps)
    try {
      expect(await ledger(other)).toEqual(await ledger(target))
      await (
        await restoreBackupFile(target, file, { pageRows: 2 })
      ).cleanup
      await new Promise((resolve) => setTimeout(resolve, 50))
      expect(await ledger(other)).toEqual(await ledger(target))
      expect((await ledger(other)).length).toBe(10)
    } finally {
      other.close()
    }
  })
})
