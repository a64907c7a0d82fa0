// How main reaches the team's PostgreSQL: TLS with certificate verification unless the host is loopback
// (then plain, and the settings screen says so), the password handed over only here, and every failure of
// a connection attempt named for the accountant without the password, the host's answer body or a stack.
import { isIP } from 'node:net'
import pg from 'pg'
import { TEAM_FAILURE_CODES } from '../../shared/contract/team'
import { TEAM_SCHEMA_VERSION } from './schema-version'

export interface TeamConfig {
  host: string
  port: number
  database: string
  user: string
  /** PEM of the CA that signed the server's certificate, when it is not one the system trusts. */
  caPem?: string
}

/** What can go wrong reaching or using the server (the contract's codes but the two only main knows of). */
export type TeamFailure = Exclude<(typeof TEAM_FAILURE_CODES)[number], 'not_configured' | 'no_password'>

export class TeamError extends Error {
  readonly failure: TeamFailure
  constructor(failure: TeamFailure, message: string) {
    super(message)
    this.name = 'TeamError'
    this.failure = failure
  }
}

export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase()
  if (h === 'localhost') return true
  if (isIP(h) === 4) return h.startsWith('127.')
  return h === '::1'
}

export function clientConfig(config: TeamConfig, password: string): pg.ClientConfig {
  return {
    host: config.host,
    port: config.port,
    database: config.database,
    user: config.user,
    password,
    ssl: isLoopbackHost(config.host)
      ? false
      : { rejectUnauthorized: true, servername: config.host, ...(config.caPem ? { ca: config.caPem } : {}) },
    connectionTimeoutMillis: 10_000,
    application_name: 'closebook',
  }
}

const TLS_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'ERR_SSL_WRONG_VERSION_NUMBER',
])
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ECONNRESET',
])

/** Names what went wrong reaching or using the server; the message never holds the password. */
export function classify(
  error: unknown,
  config: Pick<TeamConfig, 'host' | 'port' | 'database' | 'user'>,
): TeamError {
  if (error instanceof TeamError) return error
  const code = typeof error === 'object' && error && 'code' in error ? String(error.code) : ''
  const message = error instanceof Error ? error.message : String(error)
  const where = `${config.host}:${config.port}`
  if (UNREACHABLE_CODES.has(code) || /timeout expired|Connection terminated/i.test(message)) {
    return new TeamError('unreachable', `The team server at ${where} does not answer (${code || 'timeout'}).`)
  }
  if (TLS_CODES.has(code) || /certificate|SSL|TLS/i.test(message)) {
    return new TeamError(
      'tls',
      `The team server at ${where} has no TLS connection Closebook can verify (${code || message.slice(0, 120)}).`,
    )
  }
  if (code === '28P01' || code === '28000') {
    return new TeamError(
      'auth_failed',
      `PostgreSQL refused the login ${config.user} (wrong password or no access).`,
    )
  }
  if (code === '3D000')
    return new TeamError('no_database', `There is no database ${config.database} on ${where}.`)
  const hint = typeof error === 'object' && error && 'hint' in error ? String(error.hint) : ''
  if (hint === 'closebook:no_grant') return new TeamError('no_grant', message.slice(0, 300))
  if (code === '42501') return new TeamError('missing_role', message.slice(0, 300))
  // Data exceptions raised by the team functions name the field at fault and hold no secret.
  if (code.startsWith('22')) return new TeamError('invalid_input', message.slice(0, 300))
  return new TeamError('server_error', `The team server answered an error (${code || 'unknown'}).`)
}

export interface ServerCheck {
  schemaVersion: number
  login: string
  merchants: { merchantId: string; mode: string; name: string; role: string }[]
  plain: boolean
}

/** Connects, checks the schema version and the login's membership and grants, then disconnects. */
export async function testConnection(config: TeamConfig, password: string): Promise<ServerCheck> {
  const client = new pg.Client(clientConfig(config, password))
  client.on('error', () => undefined)
  try {
    await client.connect()
    return await checkServer(client, config)
  } catch (error) {
    throw classify(error, config)
  } finally {
    await client.end().catch(() => undefined)
  }
}

export async function checkServer(client: pg.ClientBase, config: TeamConfig): Promise<ServerCheck> {
  const found = await client.query<{ t: string | null; member: boolean }>(
    "SELECT to_regclass('closebook.schema_migrations')::text AS t, pg_has_role(current_user, 'closebook_member', 'member') AS member",
  )
  const row = found.rows[0]
  if (!row?.member) {
    throw new TeamError(
      'missing_role',
      `The login ${config.user} is not a Closebook team member; the admin runs: npm run team -- add-user ${config.user}`,
    )
  }
  if (!row.t) {
    throw new TeamError(
      'schema_missing',
      `The database ${config.database} has no Closebook schema: npm run team -- init`,
    )
  }
  const version = await client.query<{ v: number | null }>(
    'SELECT max(version) AS v FROM closebook.schema_migrations',
  )
  const schemaVersion = version.rows[0]?.v ?? 0
  if (schemaVersion < TEAM_SCHEMA_VERSION) {
    throw new TeamError(
      'schema_too_old',
      `The team schema is version ${schemaVersion}; this Closebook needs ${TEAM_SCHEMA_VERSION}: the admin runs npm run team -- migrate`,
    )
  }
  if (schemaVersion > TEAM_SCHEMA_VERSION) {
    throw new TeamError(
      'schema_too_new',
      `The team schema is version ${schemaVersion}, newer than this Closebook (${TEAM_SCHEMA_VERSION}): update Closebook.`,
    )
  }
  const merchants = await client.query<{ merchantId: string; mode: string; name: string; role: string }>(
    `SELECT m.service_merchant_id AS "merchantId", m.mode, m.name, mem.role
       FROM closebook.merchants m JOIN closebook.members mem ON mem.merchant_id = m.id AND mem.login = session_user
      ORDER BY m.service_merchant_id, m.mode`,
  )
  return { schemaVersion, login: config.user, merchants: merchants.rows, plain: isLoopbackHost(config.host) }
}
