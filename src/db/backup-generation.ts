/**
 * A restore's generation (schema v13). The tables a restore writes in bulk (GENERATION_TABLE_NAMES) exist
 * in two slots; the cache reads the live generation's, and a restore writes the next generation's, which
 * nothing reads. Its switch is one small transaction that copies the staged small tables and moves the
 * live generation; the previous generation's slot is emptied afterwards, in the background, and again at
 * the next open or restore if that was interrupted.
 */
import type { ClosebookDb, GenerationTables } from './database'
import type { SettingRecord } from './storage-rows'

/**
 * The staged settings row naming the restore that owns the staging and the next generation's slot: two
 * restores at once (two tabs) would share them, so the switch checks the owner is still its own, and the
 * background cleanup leaves the slot alone while a restore owns it.
 */
export const STAGING_OWNER_KEY = 'restoreStagingOwner'

/** The generation a restore writes: its number (the live one's plus one) and its slot's tables. */
export interface NextGeneration {
  generation: number
  tables: GenerationTables
}

/** The live generation's successor, in the slot the cache does not read. */
function nextOf(db: ClosebookDb, live: number): NextGeneration {
  return { generation: live + 1, tables: db.generationTables(live + 1) }
}

/**
 * Empties the staging tables and the slot the cache does not read (a restore that stopped, or one whose
 * old generation is not emptied yet): the live generation is read from the stored row in the same
 * transaction, so a tab that missed another's switch never empties the live slot.
 */
export async function clearRestoreStaging(db: ClosebookDb): Promise<void> {
  await emptyNextSlot(db)
}

async function emptyNextSlot(db: ClosebookDb, owner?: string): Promise<NextGeneration> {
  const scope = [...db.stagedTables(), ...db.bothSlots(), db.liveGeneration]
  return db.transaction('rw', scope, async () => {
    const live = await db.storedGeneration()
    const next = nextOf(db, live.generation)
    await Promise.all([...db.stagedTables(), ...db.slotTables(next.generation)].map((t) => t.clear()))
    if (live.cleanup) await db.liveGeneration.put({ ...live, cleanup: false })
    if (owner !== undefined) await db.staged('settings').put({ key: STAGING_OWNER_KEY, value: owner })
    return next
  })
}

/**
 * Starts a restore owned by `owner`: staging and the next generation's slot emptied (what a stopped
 * restore left), the owner written, the next generation returned.
 */
export async function beginRestore(db: ClosebookDb, owner: string): Promise<NextGeneration> {
  const next = await emptyNextSlot(db, owner)
  // A tab that missed a switch learns the live generation here, before it reads anything for the restore.
  db.adoptGeneration(next.generation - 1)
  return next
}

/** Whether `owner` still owns the staging (read in the caller's transaction). */
export async function ownsStaging(db: ClosebookDb, owner: string): Promise<boolean> {
  const staged = (await db.staged('settings').get(STAGING_OWNER_KEY)) as SettingRecord | undefined
  return staged?.value === owner
}

/**
 * Empties the previous generation's slot after a switch, in one transaction: interrupted, it is redone
 * by the next call (the app calls it when the cache opens). Leaves the slot alone while a restore owns
 * it (that restore emptied it when it began). Resolves whether it emptied anything; never rejects.
 */
export async function cleanOldGeneration(db: ClosebookDb): Promise<boolean> {
  try {
    const scope = [db.liveGeneration, db.staged('settings'), ...db.bothSlots()]
    return await db.transaction('rw', scope, async () => {
      const live = await db.storedGeneration()
      if (!live.cleanup) return false
      if ((await db.staged('settings').get(STAGING_OWNER_KEY)) !== undefined) return false
      await Promise.all(db.slotTables(live.generation + 1).map((t) => t.clear()))
      await db.liveGeneration.put({ ...live, cleanup: false })
      return true
    })
  } catch {
    // A closed or deleted cache: whatever is left is emptied by the next open or restore.
    return false
  }
}
