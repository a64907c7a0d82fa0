/**
 * Opening a cache left by each older version. The caches (migrations/cache-vK.json) and what opening them
 * must leave (expected-v8.json) were captured from the released code that wrote them, by opening a v1
 * cache with versions 1..K of that code: they are the rows as version K stored them, literally.
 *
 * Today's row shaping is replaced below by functions that throw: the version steps must carry their own
 * frozen copies, so a later change to how the app shapes rows can never change what opening an old
 * cache writes.
 */
import Dexie from 'dexie'
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb'
import { afterEach, describe, expect, it, vi } from 'vitest'
import {
  ClosebookDb,
  CURRENT_SCHEMA,
  GENERATION_TABLE_NAMES,
  slotTableName,
  CURRENT_VERSION,
  STAGED_TABLE_NAMES,
  stagedTableName,
  TABLE_NAMES,
} from '../../../../src/db/database'
import { MIGRATIONS, type MigrationProgress } from '../../../../src/db/migrations'
import { setPassPageSizeForTests } from '../../../../src/db/migrations/step'
import expectedV8 from './migrations/expected-v8.json'

/**
 * What the released v8 code left, plus the tables later versions add empty (v10: the charge days and
 * parts; v11: the payout tables; v12: the team workspace; v15: the history's day parts, which leave
 * the records in `history`; v16: the day summaries, which days written before do without).
 */
const expected = {
  ...expectedV8,
  historyParts: [],
  chargeDays: [],
  chargeParts: [],
  payoutTransfers: [],
  payoutLedgers: [],
  payoutStatusChanges: [],
  payoutBankAccounts: [],
  payoutConfig: [],
  payoutSync: [],
  payoutQuarantine: [],
  ledgerLinks: [],
  teamOutbox: [],
  teamRefused: [],
  teamAudit: [],
  teamState: [],
  daySummaries: [],
}

const { changedToday } = vi.hoisted(() => ({
  changedToday: (name: string) => () => {
    throw new Error(`a migration called today's ${name}`)
  },
}))
vi.mock('../../../../src/domain/fingerprint', () => ({
  fingerprintOf: changedToday('fingerprintOf'),
  hasChangedSinceReconciled: changedToday('hasChangedSinceReconciled'),
}))
vi.mock('../../../../src/db/history-record', async (original) => ({
  ...(await original<object>()),
  orderRefOf: changedToday('orderRefOf'),
  searchTextOf: changedToday('searchTextOf'),
  searchTokensOf: changedToday('searchTokensOf'),
  searchDayOf: changedToday('searchDayOf'),
  tokenPrefix: changedToday('tokenPrefix'),
}))
vi.mock('../../../../src/db/day-digests', () => ({
  DayDigestCollector: changedToday('DayDigestCollector'),
  recordDigestOf: changedToday('recordDigestOf'),
  dayDigestRowsOf: changedToday('dayDigestRowsOf'),
}))
vi.mock('../../../../src/db/day-tokens', () => ({
  DayTokensCollector: changedToday('DayTokensCollector'),
  tokenTextOf: changedToday('tokenTextOf'),
  dayTokenRowsOf: changedToday('dayTokenRowsOf'),
}))
vi.mock('../../../../src/db/marks-repository', () => ({
  markDayOf: changedToday('markDayOf'),
  markDayRowsOf: changedToday('markDayRowsOf'),
}))
vi.mock('../../../../src/db/audit-repository', () => ({
  auditRowsOf: changedToday('auditRowsOf'),
  auditTag: changedToday('auditTag'),
}))

const caches = import.meta.glob<Record<string, object[]>>('./migrations/cache-v*.json', {
  eager: true,
  import: 'default',
})

function cacheOf(version: number): Record<string, object[]> {
  const found = caches[`./migrations/cache-v${version}.json`]
  if (!found) throw new Error(`no fixture for v${version}`)
  return found
}

/** Leaves a cache as version `version` of the app did: its schema (steps 1..version), then its rows. */
async function createCacheAt(
  version: number,
  deps: { indexedDB: IDBFactory; IDBKeyRange: typeof IDBKeyRange },
) {
  const old = new Dexie('closebook', deps)
  for (const step of MIGRATIONS.slice(0, version)) old.version(step.version).stores(step.stores)
  await old.open()
  for (const [table, rows] of Object.entries(cacheOf(version))) await old.table(table).bulkAdd(rows)
  old.close()
}

/** Every table's rows; a restore's staging tables (v9) must be empty, so they are checked and left out. */
async function everyTable(db: ClosebookDb): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {}
  // Empty after an upgrade: the staging, the second slot of the generation tables, the generation row.
  const staged = new Set<string>([
    ...STAGED_TABLE_NAMES.map(stagedTableName),
    ...GENERATION_TABLE_NAMES.map((name) => slotTableName(name, 1)),
    'liveGeneration',
  ])
  for (const t of db.tables) {
    const rows = await t.toArray()
    if (staged.has(t.name)) expect(rows, t.name).toEqual([])
    else out[t.name] = rows
  }
  return out
}

describe('schema version steps', () => {
  afterEach(() => setPassPageSizeForTests())

  it('run 1..current in order, each naming every table of the version before it', () => {
    const versions = Array.from({ length: CURRENT_VERSION }, (_, i) => i + 1)
    expect(MIGRATIONS.map((m) => m.version)).toEqual(versions)
    for (let i = 1; i < MIGRATIONS.length; i++) {
      const before = Object.entries(MIGRATIONS[i - 1]!.stores).flatMap(([t, s]) => (s === null ? [] : [t]))
      expect(Object.keys(MIGRATIONS[i]!.stores)).toEqual(expect.arrayContaining(before))
    }
  })

  it('end at the schema schema.ts states in full', async () => {
    const last = MIGRATIONS[MIGRATIONS.length - 1]!
    // The tables it keeps (a null drops one of the version before).
    expect(Object.fromEntries(Object.entries(last.stores).filter(([, spec]) => spec !== null))).toEqual(
      CURRENT_SCHEMA,
    )
    expect(Object.keys(CURRENT_SCHEMA).sort()).toEqual(
      [
        ...TABLE_NAMES,
        ...STAGED_TABLE_NAMES.map(stagedTableName),
        'liveGeneration',
        'legacyHistory',
        ...GENERATION_TABLE_NAMES.map((name) => slotTableName(name, 1)),
      ].sort(),
    )
    const db = new ClosebookDb('fresh', { indexedDB: new IDBFactory(), IDBKeyRange })
    await db.open()
    expect(db.verno).toBe(CURRENT_VERSION)
    db.close()
  })

  // Through v16, as released: today a cache of v6 or older sets its history aside first (legacy-history.test.ts).
  for (const version of [1, 2, 3, 4, 5, 6, 7]) {
    it(`open a v${version} cache to exactly what the released code left (digests, tokens, mark days, audit)`, async () => {
      const deps = { indexedDB: new IDBFactory(), IDBKeyRange }
      await createCacheAt(version, deps)
      const db = new ClosebookDb('closebook', deps, { upToVersion: 16 })
      await db.open()
      expect(await everyTable(db)).toEqual(expected)
      db.close()
    })
  }

  it('give the same result a page of one record at a time, and report each pass to the end', async () => {
    setPassPageSizeForTests(1)
    const deps = { indexedDB: new IDBFactory(), IDBKeyRange }
    await createCacheAt(1, deps)
    const db = new ClosebookDb('closebook', deps, { upToVersion: 16 })
    const seen: MigrationProgress[] = []
    db.onMigrationProgress = (p) => seen.push(p)
    await db.open()
    expect(await everyTable(db)).toEqual(expected)
    db.close()
    // Versions 2, 5, 6 and 7 say they started, then pass over history's 3 records, reporting 0..3 of 3.
    const steps = [2, 5, 6, 7].flatMap((version) => [
      { version, done: 0, total: 0 },
      ...[0, 1, 2, 3].map((done) => ({ version, done, total: 3 })),
    ])
    expect(seen).toEqual(steps)
  })
})
