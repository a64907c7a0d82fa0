import { describe, expect, it } from 'vitest'
import { BACKUP_FORMAT, BACKUP_VERSION, validateBackup, type Backup } from '../../../../src/db/backup'
import { backupChunks } from '../../../../src/stores/cache-admin-store'

const empty: Backup['tables'] = {
  connections: [],
  stores: [],
  history: [],
  charges: [],
  marks: [],
  audit: [],
  checkpoints: [],
  locks: [],
  settings: [],
  imports: [],
  importedRows: [],
  payoutBankAccounts: [],
  payoutConfig: [],
  payoutTransfers: [],
  payoutStatusChanges: [],
  payoutLedgers: [],
  ledgerLinks: [],
}

describe('backupChunks', () => {
  it('streams a backup whose chunks join to the same JSON document, for empty and large tables', () => {
    const settings = Array.from({ length: 5000 }, (_, i) => ({ key: `k${i}`, value: 'x'.repeat(100) }))
    for (const tables of [empty, { ...empty, settings }]) {
      const backup: Backup = {
        format: BACKUP_FORMAT,
        version: BACKUP_VERSION,
        exportedAt: '2026-11-23T00:00:00.000Z',
        tables,
      }
      const chunks = [...backupChunks(backup)]
      const text = chunks.join('')
      expect(JSON.parse(text)).toEqual(backup)
      expect(validateBackup(JSON.parse(text))).toEqual(backup)
      if (tables.settings.length > 0) expect(chunks.length).toBeGreaterThan(3)
    }
  })
})
