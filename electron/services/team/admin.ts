// What the team admin command does, separate from its argument parsing so tests drive it directly: apply
// migrations, create an accountant's login, grant a login a role on a merchant.
import { createHash, createHmac, pbkdf2Sync, randomBytes } from 'node:crypto'
import type { ClientBase } from 'pg'

export const TEAM_ROLES = ['preparer', 'reviewer', 'admin'] as const
export type TeamRole = (typeof TEAM_ROLES)[number]
export const MODES = ['live', 'test'] as const
export type MerchantMode = (typeof MODES)[number]

const LOGIN = /^[a-z_][a-z0-9_.@-]{0,62}$/

export function checkLogin(login: string): string {
  if (!LOGIN.test(login)) {
    throw new Error(
      `login "${login.slice(0, 80)}" must start with a lowercase letter or _, then up to 62 of a-z 0-9 _ . @ -`,
    )
  }
  return login
}

/**
 * The SCRAM-SHA-256 verifier PostgreSQL stores for a password (RFC 7677, as psql's \password makes it), so
 * `CREATE ROLE … PASSWORD` carries no plain password the server could log.
 */
export function scramVerifier(password: string, salt: Buffer = randomBytes(16), iterations = 4096): string {
  const salted = pbkdf2Sync(password.normalize('NFKC'), salt, iterations, 32, 'sha256')
  const clientKey = createHmac('sha256', salted).update('Client Key').digest()
  const storedKey = createHash('sha256').update(clientKey).digest()
  const serverKey = createHmac('sha256', salted).update('Server Key').digest()
  return `SCRAM-SHA-256$${iterations}:${salt.toString('base64')}$${storedKey.toString('base64')}:${serverKey.toString('base64')}`
}

function literal(value: string): string {
  return `'${value.replace(/'/g, "''")}'`
}

/** Creates the login (or sets its password when it exists) as a member of closebook_member. */
export async function addUser(client: ClientBase, login: string, password: string): Promise<void> {
  checkLogin(login)
  if (password.length < 12) throw new Error('the password must be at least 12 characters')
  const id = client.escapeIdentifier(login)
  const verifier = literal(scramVerifier(password))
  const exists = await client.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [login])
  if (exists.rowCount) await client.query(`ALTER ROLE ${id} LOGIN PASSWORD ${verifier}`)
  else await client.query(`CREATE ROLE ${id} LOGIN PASSWORD ${verifier}`)
  await client.query(`GRANT closebook_member TO ${id}`)
}

export interface GrantInput {
  login: string
  merchantId: string
  mode: MerchantMode
  role: TeamRole
  merchantName?: string
}

/** Grants a login a role on a merchant (by the payment service's merchant id and mode), creating the merchant. */
export async function grant(client: ClientBase, input: GrantInput): Promise<void> {
  checkLogin(input.login)
  if (!TEAM_ROLES.includes(input.role)) throw new Error(`role must be one of ${TEAM_ROLES.join(', ')}`)
  if (!MODES.includes(input.mode)) throw new Error(`mode must be one of ${MODES.join(', ')}`)
  const role = await client.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [input.login])
  if (!role.rowCount) throw new Error(`no login ${input.login}: run add-user first`)
  await client.query('SELECT closebook.admin_grant($1, $2, $3, $4, $5)', [
    input.login,
    input.merchantId,
    input.mode,
    input.role,
    input.merchantName ?? '',
  ])
}
