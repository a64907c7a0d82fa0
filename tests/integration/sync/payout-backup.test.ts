/**
 * Payouts in backups: payouts synced from the sandbox through the bridge, backed up, and restored into a
 * fresh cache hold the same transfers, status changes, ledgers, bank accounts, configuration and ledger
 * links; a file whose payout rows point at nothing, or at a connection it lacks, is refused whole.
 */
import { IDBKeyRange, indexedDB } from 'fake-indexeddb'
import { afterEach, describe, expect, it } from 'vitest'
import { PayoutsRepository } from '../../../src/db/payouts-repository'
import { BackupError, checkBackupFile, restoreBackupFile, streamBackup } from '../../../src/db/backup-stream'
import { PAYOUT_BACKUP_TABLES } from '../../../src/db/backup-payouts'
import { ClosebookDb } from '../../../src/db/database'
import { PayoutSync } from '../../../src/sync/payout-sync'
import type { Harness } from '../support/harness'
import { startPayoutHarness, syncAllRecords } from '../support/payout-harness'
import { countHistory } from '../../../src/db/history-part-reads'

const harnesses: Harness[] = []
const fresh: ClosebookDb[] = []
afterEach(async () => {
  await Promise.all(harnesses.splice(0).map((h) => h.close()))
  for (const db of fresh.splice(0)) {
    db.close()
    await db.delete()
  }
})

async function syncedHarness(): Promise<Harness> {
  const h = await startPayoutHarness()
  harnesses.push(h)
  await syncAllRecords(h)
  const payouts = await new PayoutSync(
    { payoutPage: (args) => h.api.api.payoutPage(args) },
    new PayoutsRepository(h.db),
  ).run({
    connectionId: h.connectionId,
    jobId: 'payout-backup-test',
  })
  expect(payouts.complete).toBe(true)
  return h
}

async function backupOf(db: ClosebookDb): Promise<string> {
  let text = ''
  for await (const chunk of streamBackup(db)) text += chunk
  return text
}

async function freshDb(): Promise<ClosebookDb> {
  const db = new ClosebookDb(`payout-backup-${fresh.length}-${Math.random()}`, { indexedDB, IDBKeyRange })
  await db.open()
  fresh.push(db)
  return db
}

const payoutTables = async (db: ClosebookDb): Promise<Record<string, unknown[]>> =>
  Object.fromEntries(
    await Promise.all(PAYOUT_BACKUP_TABLES.map(async (t) => [t, await db.table(t).toArray()] as const)),
  )

/** The file with `edit` applied to its rows of `table` (section counts kept). */
function editRows(text: string, table: string, edit: (row: Record<string, unknown>) => void): string {
  let section = ''
  return text
    .split('\n')
    .map((line) => {
      if (line === '') return line
      const value = JSON.parse(line) as Record<string, unknown>
      if (typeof value['table'] === 'string' && typeof value['rows'] === 'number') {
        section = value['table']
        return line
      }
      if (section !== table) return line
      edit(value)
      return JSON.stringify(value)
    })
    .join('\n')
}

async function refusal(p: Promise<unknown>): Promise<BackupError> {
  const error = await p.then(
    () => null,
    (e: unknown) => e,
  )
  if (!(error instanceof BackupError)) throw new Error(`expected a BackupError, got ${String(error)}`)
  return error
}

describe('payouts in a backup', () => {
  it('restores synced payouts into a fresh cache: every payout table equal', async () => {
    const h = await syncedHarness()
    const before = await payoutTables(h.db)
    // The sandbox's payouts are all there, so the comparison below is about something.
    expect(before['payoutTransfers']!.length).toBeGreaterThan(3)
    expect(before['payoutLedgers']!.length).toBeGreaterThan(50)
    expect(before['payoutStatusChanges']!.length).toBeGreaterThan(3)
    expect(before['payoutBankAccounts']!.length).toBeGreaterThan(0)
    expect(before['payoutConfig']!.length).toBe(1)
    // Charges' ledger links live in their charge parts (schema v14); a restore files the parts again.
    const ledgerIds = (before['payoutLedgers'] as { id: string }[]).map((l) => l.id)
    const linksOf = async (db: typeof h.db) =>
      [...(await new PayoutsRepository(db).recordsByLedgerIds(h.connectionId, ledgerIds))]
        .map(([id, r]) => JSON.stringify([id, r.link, r.charge?.id, r.history?.key]))
        .sort()
    const linked = await linksOf(h.db)
    expect(linked.length).toBeGreaterThan(50)

    const file = new Blob([await backupOf(h.db)])
    const check = await checkBackupFile(file)
    expect(check.counts.payoutTransfers).toBe(before['payoutTransfers']!.length)
    expect(check.counts.payoutLedgers).toBe(before['payoutLedgers']!.length)
    const target = await freshDb()
    await restoreBackupFile(target, file, { expectDigest: check.digest })
    expect(await payoutTables(target)).toEqual(before)
    expect(await linksOf(target)).toEqual(linked)
    // The restored cache answers the view's questions as the synced one did.
    const repo = new PayoutsRepository(target)
    const first = before['payoutTransfers']![0] as { id: string }
    expect(await repo.ledgersOfTransfer(h.connectionId, first.id)).toEqual(
      await new PayoutsRepository(h.db).ledgersOfTransfer(h.connectionId, first.id),
    )
  })

  it('refuses a ledger of a transfer the file lacks, and a payout row of an unknown connection, changing nothing', async () => {
    const h = await syncedHarness()
    const text = await backupOf(h.db)
    const target = await freshDb()
    await target.settings.put({ key: 'kept', value: 1 })

    let once = false
    const orphan = editRows(text, 'payoutLedgers', (row) => {
      if (once || row['transferId'] === null) return
      once = true
      row['transferId'] = 'tr_nowhere'
      row['transferKey'] = 'tr_nowhere'
    })
    const refused = await refusal(checkBackupFile(new Blob([orphan])))
    expect(refused.code).toBe('payout_without_transfer')
    expect(refused.params['transfer']).toBe('tr_nowhere')

    const stranger = editRows(text, 'payoutTransfers', (row) => {
      row['connectionId'] = 'someone-else'
    })
    expect((await refusal(checkBackupFile(new Blob([stranger])))).code).toBe('unknown_connection')

    const longNote = editRows(text, 'payoutTransfers', (row) => {
      row['note'] = 'x'.repeat(2_001)
    })
    expect(await refusal(checkBackupFile(new Blob([longNote])))).toMatchObject({
      code: 'text_too_long',
      params: { table: 'payoutTransfers', field: 'note' },
    })

    const fullNumber = editRows(text, 'payoutBankAccounts', (row) => {
      row['accountNumberMasked'] = '1234567890'
    })
    expect((await refusal(checkBackupFile(new Blob([fullNumber])))).code).toBe('invalid_row')

    // All or nothing: the fresh cache is as it was.
    expect(await target.settings.toArray()).toEqual([{ key: 'kept', value: 1 }])
    for (const rows of Object.values(await payoutTables(target))) expect(rows).toEqual([])
  })

  it('restores a backup made before payouts were backed up, as holding none', async () => {
    const h = await syncedHarness()
    const text = await backupOf(h.db)
    // The same file without the payout sections (and with the end line's count of the rest).
    const lines = text.split('\n').filter((l) => l !== '')
    const kept: string[] = []
    let inPayouts = false
    let rows = 0
    for (const line of lines) {
      const value = JSON.parse(line) as Record<string, unknown>
      if ('end' in value) {
        kept.push(JSON.stringify({ end: true, rows }))
        continue
      }
      if (typeof value['table'] === 'string' && typeof value['rows'] === 'number') {
        inPayouts = (PAYOUT_BACKUP_TABLES as readonly string[]).includes(value['table'])
        if (!inPayouts) kept.push(line)
        continue
      }
      if (inPayouts || 'format' in value) {
        if ('format' in value) kept.push(line)
        continue
      }
      rows++
      kept.push(line)
    }
    const older = new Blob([`${kept.join('\n')}\n`])
    await checkBackupFile(older)
    const target = await freshDb()
    await restoreBackupFile(target, older)
    expect(await countHistory(target)).toBeGreaterThan(0)
    for (const rows of Object.values(await payoutTables(target))) expect(rows).toEqual([])
  })
})
