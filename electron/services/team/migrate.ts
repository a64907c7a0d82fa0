// The team schema's versioned, frozen SQL migrations (migrations/NNN_name.sql) and their runner. Each file
// is applied once, in one transaction, and its SHA-256 recorded; a database whose recorded checksum differs
// from the file of the same number is refused (a frozen migration was edited), so every workspace runs
// exactly the SQL a DBA could read with `npm run team -- sql`.
import { createHash } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { ClientBase } from 'pg'
import { TEAM_SCHEMA_VERSION } from './schema-version'

export interface Migration {
  version: number
  name: string
  sql: string
  sha256: string
}

const FILE = /^(\d{3})_([a-z0-9_]+)\.sql$/

export function migrationsDir(): string {
  return join(dirname(fileURLToPath(import.meta.url)), 'migrations')
}

/** Every migration file, in order; refuses a gap or a duplicate number. */
export function loadMigrations(dir: string = migrationsDir()): Migration[] {
  const migrations = readdirSync(dir)
    .filter((f) => f.endsWith('.sql'))
    .map((file) => {
      const match = FILE.exec(file)
      if (!match) throw new Error(`migration file ${file} is not named NNN_name.sql`)
      const sql = readFileSync(join(dir, file), 'utf8')
      return {
        version: Number(match[1]),
        name: match[2] ?? file,
        sql,
        sha256: createHash('sha256').update(sql).digest('hex'),
      }
    })
    .sort((a, b) => a.version - b.version)
  migrations.forEach((m, i) => {
    if (m.version !== i + 1) throw new Error(`migration ${m.version} is out of sequence (expected ${i + 1})`)
  })
  if (migrations.length !== TEAM_SCHEMA_VERSION) {
    throw new Error(`${migrations.length} migration files but the app expects schema ${TEAM_SCHEMA_VERSION}`)
  }
  return migrations
}

/** What a DBA runs by hand: each pending migration inside its own transaction, recording its checksum. */
export function migrationSql(migrations: Migration[], fromVersion = 0): string {
  return migrations
    .filter((m) => m.version > fromVersion)
    .map(
      (m) =>
        `-- migration ${m.version}: ${m.name}\nBEGIN;\n${m.sql}\n` +
        `INSERT INTO closebook.schema_migrations (version, name, sha256) VALUES (${m.version}, '${m.name}', '${m.sha256}');\nCOMMIT;\n`,
    )
    .join('\n')
}

export interface AppliedMigration {
  version: number
  sha256: string
}

export async function appliedMigrations(client: ClientBase): Promise<AppliedMigration[]> {
  const exists = await client.query<{ t: string | null }>(
    "SELECT to_regclass('closebook.schema_migrations')::text AS t",
  )
  if (!exists.rows[0]?.t) return []
  const rows = await client.query<AppliedMigration>(
    'SELECT version, sha256 FROM closebook.schema_migrations ORDER BY version',
  )
  return rows.rows
}

/** Refuses when a recorded migration's checksum differs from its file, or the database is newer than us. */
export function checkApplied(migrations: Migration[], applied: AppliedMigration[]): void {
  for (const row of applied) {
    const file = migrations.find((m) => m.version === row.version)
    if (!file) {
      throw new Error(
        `the database has schema migration ${row.version}, newer than this Closebook (${migrations.length}); update Closebook`,
      )
    }
    if (file.sha256 !== row.sha256) {
      throw new Error(`migration ${row.version} (${file.name}) on the database differs from the frozen file`)
    }
  }
}

/** Applies every pending migration, each in its own transaction; returns the versions applied. */
export async function migrate(
  client: ClientBase,
  migrations: Migration[] = loadMigrations(),
): Promise<number[]> {
  const applied = await appliedMigrations(client)
  checkApplied(migrations, applied)
  const done = new Set(applied.map((a) => a.version))
  const ran: number[] = []
  for (const m of migrations) {
    if (done.has(m.version)) continue
    await client.query('BEGIN')
    try {
      await client.query(m.sql)
      await client.query(
        'INSERT INTO closebook.schema_migrations (version, name, sha256) VALUES ($1, $2, $3)',
        [m.version, m.name, m.sha256],
      )
      await client.query('COMMIT')
    } catch (error) {
      await client.query('ROLLBACK')
      throw error
    }
    ran.push(m.version)
  }
  return ran
}
