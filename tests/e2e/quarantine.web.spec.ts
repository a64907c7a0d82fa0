import { openDemoAndSync } from './support/demo'
import { expect, test } from './support/web-host'

/**
 * A quarantined item is visible in the ledger and the sync panel, and "Fetch again" releases it once the
 * service returns it valid. The demo serves only valid items, so one of its records is filed in the
 * quarantine table as sync files a bad one (same row shape), then fetched again through the real path.
 */
test.describe('quarantine on the web host', () => {
  test('set-aside item shown in ledger and sync panel; Fetch again stores and releases it', async ({
    page,
    webHost,
  }) => {
    test.setTimeout(120_000)
    await openDemoAndSync(page, webHost.launchUrl)
    const itemId = await page.evaluate(async () => {
      const db = await new Promise<IDBDatabase>((resolve, reject) => {
        const open = indexedDB.open('closebook')
        open.onsuccess = () => resolve(open.result)
        open.onerror = () => reject(open.error ?? new Error('open failed'))
      })
      // Synced history is stored in day parts (schema v15): the first part's first record, whose store
      // the lean row may leave to its payload.
      const tx = db.transaction(['historyParts', 'quarantine'], 'readwrite')
      type Row = {
        connectionId: string
        resourceId: string
        storeId?: string
        createdAt: number
        raw: { created_on: string; store_id: string }
      }
      const row = await new Promise<Row>((resolve, reject) => {
        const req = tx.objectStore('historyParts').openCursor()
        req.onsuccess = () => resolve((req.result?.value as { rows: Row[] }).rows[0] as Row)
        req.onerror = () => reject(req.error ?? new Error('read failed'))
      })
      const first = { ...row, storeId: row.storeId ?? row.raw.store_id }
      tx.objectStore('quarantine').put({
        connectionId: first.connectionId,
        id: `transaction_history|charge|${first.resourceId}`,
        resource: 'transaction_history',
        itemId: first.resourceId,
        itemType: 'charge',
        storeId: first.storeId,
        kind: 'invalid',
        reason: 'amount: expected number, received string',
        issues: [{ path: 'amount', message: 'expected number, received string' }],
        request: `GET /stores/${first.storeId}/transaction_history?cursor_direction=asc&limit=100`,
        from: first.createdAt,
        to: first.createdAt,
        createdOn: first.raw.created_on,
        raw: { ...first.raw, amount: 'lots' },
        firstSeenAt: Date.now(),
        lastSeenAt: Date.now(),
      })
      await new Promise<void>((resolve, reject) => {
        tx.oncomplete = () => resolve()
        tx.onerror = () => reject(tx.error ?? new Error('write failed'))
      })
      db.close()
      return first.resourceId
    })

    const nav = page.getByRole('navigation', { name: 'Main navigation' })
    await nav.getByRole('link', { name: 'Ledger' }).click()
    await expect(page.getByTestId('quarantine-notice')).toContainText(
      '1 item of this connection is set aside by sync',
    )

    await nav.getByRole('link', { name: 'Connections' }).click()
    await expect(page.getByTestId('quarantine-count')).toHaveText('Set aside: 1 item')
    // Never a bare "Up to date." while an item is set aside.
    await expect(page.getByTestId('sync-state')).toHaveText('Up to date, 1 item set aside: fetch again.')
    const table = page.getByRole('table', { name: 'Items set aside' })
    await expect(table).toContainText(itemId)
    await expect(table).toContainText('amount: expected number, received string')
    await expect(table).toContainText('GET /stores/')
    await table.getByRole('button', { name: `Fetch item ${itemId} again` }).click()
    await expect(page.getByTestId('quarantine-outcome')).toHaveText(
      'Fetched again: the item is valid now and was stored.',
    )
    await expect(page.getByTestId('quarantine-count')).toHaveCount(0)
    await expect(page.getByTestId('sync-state')).toHaveText('Up to date.')

    await nav.getByRole('link', { name: 'Ledger' }).click()
    await expect(page.getByRole('heading', { level: 1, name: 'Ledger' })).toBeVisible()
    await expect(page.getByTestId('quarantine-notice')).toHaveCount(0)
  })
})
