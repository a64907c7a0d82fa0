/**
 * `npm run team -- <command>`: sets up a team workspace on the firm's PostgreSQL. Connects with the usual
 * PG* variables (PGHOST, PGPORT, PGDATABASE, PGUSER, PGPASSWORD or ~/.pgpass) as a superuser (it creates
 * roles); TLS with certificate verification unless the host is loopback.
 */
import { readFileSync } from 'node:fs'
import { randomBytes } from 'node:crypto'
import { parseArgs } from 'node:util'
import pg from 'pg'
import { addUser, grant, MODES, TEAM_ROLES, type MerchantMode, type TeamRole } from './admin'
import { isLoopbackHost } from './connection'
import { appliedMigrations, loadMigrations, migrate, migrationSql } from './migrate'

const HELP = `Closebook team workspace administration.

Usage: npm run team -- <command> [arguments]

  sql [--from N]                       print the migrations' SQL (after version N) for a DBA to run
  init | migrate                       apply every pending migration (init on an empty database)
  status                               schema version and merchants
  add-user LOGIN [--password-stdin]    create an accountant's login (or reset its password); prints a
                                       generated password unless one is given on standard input
  grant LOGIN MERCHANT_ID MODE ROLE [--name NAME]
                                       MODE: ${MODES.join('|')}; ROLE: ${TEAM_ROLES.join('|')}

Connection: PGHOST, PGPORT, PGDATABASE, PGUSER, PGPASSWORD (or ~/.pgpass), as a superuser.
TLS with certificate verification unless PGHOST is a loopback address (PGSSLROOTCERT names a CA file).`

function client(): pg.Client {
  const host = process.env.PGHOST ?? '127.0.0.1'
  const ca = process.env.PGSSLROOTCERT
  return new pg.Client({
    host,
    ssl: isLoopbackHost(host)
      ? false
      : { rejectUnauthorized: true, ...(ca ? { ca: readFileSync(ca, 'utf8') } : {}) },
  })
}

async function withClient(work: (c: pg.Client) => Promise<void>): Promise<void> {
  const c = client()
  await c.connect()
  try {
    await work(c)
  } finally {
    await c.end()
  }
}

async function main(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      from: { type: 'string' },
      name: { type: 'string' },
      'password-stdin': { type: 'boolean' },
      help: { type: 'boolean' },
    },
  })
  const [command, ...rest] = positionals
  if (values.help || !command) {
    console.log(HELP)
    return
  }
  switch (command) {
    case 'sql':
      process.stdout.write(migrationSql(loadMigrations(), Number(values.from ?? 0)))
      return
    case 'init':
    case 'migrate':
      return withClient(async (c) => {
        const ran = await migrate(c)
        console.log(ran.length ? `applied migrations ${ran.join(', ')}` : 'schema already up to date')
      })
    case 'status':
      return withClient(async (c) => {
        const applied = await appliedMigrations(c)
        console.log(
          `schema version ${applied.at(-1)?.version ?? 'none'} (this Closebook: ${loadMigrations().length})`,
        )
        if (!applied.length) return
        const merchants = await c.query<{ service_merchant_id: string; mode: string; name: string }>(
          'SELECT service_merchant_id, mode, name FROM closebook.merchants ORDER BY id',
        )
        for (const m of merchants.rows) console.log(`merchant ${m.service_merchant_id} (${m.mode}) ${m.name}`)
      })
    case 'add-user': {
      const login = rest[0]
      if (!login) throw new Error('add-user needs a LOGIN')
      const given = values['password-stdin'] ? readFileSync(0, 'utf8').replace(/\r?\n$/, '') : null
      const password = given ?? randomBytes(18).toString('base64url')
      return withClient(async (c) => {
        await addUser(c, login, password)
        console.log(
          given ? `login ${login} ready` : `login ${login} ready; its password (shown once): ${password}`,
        )
      })
    }
    case 'grant': {
      const [login, merchantId, mode, role] = rest
      if (!login || !merchantId || !mode || !role) throw new Error('grant needs LOGIN MERCHANT_ID MODE ROLE')
      return withClient(async (c) => {
        await grant(c, {
          login,
          merchantId,
          mode: mode as MerchantMode,
          role: role as TeamRole,
          ...(values.name ? { merchantName: values.name } : {}),
        })
        console.log(`${login} is ${role} for ${merchantId} (${mode})`)
      })
    }
    default:
      throw new Error(`unknown command ${command}; see --help`)
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  console.error(`team: ${error instanceof Error ? error.message : String(error)}`)
  process.exitCode = 1
})
