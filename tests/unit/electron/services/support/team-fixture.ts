// A real PostgreSQL with the team schema migrated and accountants' logins granted, for the team tests.
import pg from 'pg'
import { addUser, grant, type TeamRole } from '../../../../../electron/services/team/admin'
import type { TeamConfig } from '../../../../../electron/services/team/connection'
import { migrate } from '../../../../../electron/services/team/migrate'
import { TeamSession, type MarkWrite, type MerchantRef } from '../../../../../electron/services/team/session'
import { createDatabase, startTestCluster, superuserOf, type TestCluster } from './postgres'

export const DATABASE = 'closebook_team'
export const DEMO: MerchantRef = { merchantId: 'mer_demo', mode: 'test' }
export const OTHER: MerchantRef = { merchantId: 'mer_other', mode: 'test' }

export interface TeamFixture {
  cluster: TestCluster
  /** A superuser connection to the team database. */
  admin: pg.Client
  config(login: string): TeamConfig
  password(login: string): string
  session(login: string): TeamSession
  stop(): Promise<void>
}

export async function startTeam(
  grants: [login: string, merchant: MerchantRef, role: TeamRole][],
): Promise<TeamFixture> {
  const cluster = await startTestCluster()
  await createDatabase(cluster, DATABASE)
  const admin = new pg.Client({ ...superuserOf(cluster), database: DATABASE })
  // A killed server ends idle connections with an error event; the tests that kill it reconnect.
  admin.on('error', () => undefined)
  await admin.connect()
  await migrate(admin)
  const password = (login: string): string => `pw-${login}-correct-horse`
  for (const login of new Set(grants.map((g) => g[0]))) await addUser(admin, login, password(login))
  for (const [login, merchant, role] of grants) await grant(admin, { login, ...merchant, role })
  const sessions: TeamSession[] = []
  const config = (login: string): TeamConfig => ({
    host: cluster.host,
    port: cluster.port,
    database: DATABASE,
    user: login,
  })
  return {
    cluster,
    admin,
    config,
    password,
    session: (login) => {
      const s = new TeamSession(config(login), password(login))
      sessions.push(s)
      return s
    },
    stop: async () => {
      await Promise.all(sessions.map((s) => s.close()))
      await admin.end().catch(() => undefined)
      cluster.stop()
    },
  }
}

let counter = 0
/** A fresh idempotency key, as an outbox entry would get one. */
export function newKey(): string {
  counter += 1
  return `test-${process.pid}-${Date.now()}-${counter}`
}

/** A charge's mark in October 2026, as a desktop would send it. */
export function markWrite(id: string, baseVersion: number, extra: Partial<MarkWrite> = {}): MarkWrite {
  return { kind: 'charge', id, month: '2026-10', reconciled: true, note: '', baseVersion, ...extra }
}
