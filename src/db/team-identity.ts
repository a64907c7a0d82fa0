/** What the cache knows of a connection's identity at the service: merchant ids of its transfers, modes of its records. */
import type { ConnectionIdentity } from '../domain/team-grants'
import type { ClosebookDb } from './database'
import { hasMode } from './history-part-reads'

const MODES = ['live', 'test'] as const

export async function connectionIdentity(db: ClosebookDb, connectionId: string): Promise<ConnectionIdentity> {
  const modes: ('live' | 'test')[] = []
  for (const mode of MODES) {
    if (await hasMode(db, connectionId, mode)) modes.push(mode)
  }
  const merchantIds = new Set<string>()
  await db.payoutTransfers
    .where('[connectionId+id]')
    .between([connectionId, ''], [connectionId, '\uffff'])
    .each((t) => {
      if (t.merchantId) merchantIds.add(t.merchantId)
    })
  return { merchantIds: [...merchantIds].sort(), modes }
}
