// TLS to the team server, against a real PostgreSQL with ssl=on and certificates made here by openssl: the
// app's connection settings verify the server's certificate with the CA given, refuse an unknown CA and a
// host name the certificate does not name, each as `tls` with the TLS error code, and never talk plain to
// a host that is not loopback. The host names are not loopback names, as a firm's server would be; their
// TCP connection is routed to the local test cluster so no DNS is involved.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { addUser } from '../../../../../electron/services/team/admin'
import { classify, clientConfig, type TeamConfig } from '../../../../../electron/services/team/connection'
import { teamConfigSchema } from '../../../../../electron/shared/contract/team'
import { postgresUnavailableReason, startTestCluster, type TestCluster } from '../support/postgres'

const unavailable =
  postgresUnavailableReason() ??
  (() => {
    try {
      execFileSync('openssl', ['version'], { stdio: 'ignore' })
      return null
    } catch {
      return 'no openssl to make the test certificates'
    }
  })()
if (unavailable) console.warn(`team TLS tests skipped: ${unavailable}`)

const SERVER_NAME = 'db.closebook.test'
const PASSWORD = 'pw-tls-login-correct-horse'

/** A CA, and a server certificate it signs for `SERVER_NAME`; plus a second CA that signed nothing here. */
function makeCertificates(dir: string): { ca: string; otherCa: string; cert: string; key: string } {
  const ssl = (...args: string[]): void => {
    execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] })
  }
  const ca = (name: string): void =>
    ssl(
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '2',
      '-subj',
      `/CN=${name}`,
      '-keyout',
      `${name}.key`,
      '-out',
      `${name}.crt`,
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    )
  ca('test-ca')
  ca('other-ca')
  ssl(
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-subj',
    `/CN=${SERVER_NAME}`,
    '-keyout',
    'server.key',
    '-out',
    'server.csr',
  )
  writeFileSync(join(dir, 'ext.cnf'), `subjectAltName=DNS:${SERVER_NAME}\nextendedKeyUsage=serverAuth\n`)
  ssl(
    'x509',
    '-req',
    '-in',
    'server.csr',
    '-CA',
    'test-ca.crt',
    '-CAkey',
    'test-ca.key',
    '-CAcreateserial',
    '-days',
    '2',
    '-out',
    'server.crt',
    '-extfile',
    'ext.cnf',
  )
  const read = (f: string): string => readFileSync(join(dir, f), 'utf8')
  return {
    ca: read('test-ca.crt'),
    otherCa: read('other-ca.crt'),
    cert: read('server.crt'),
    key: read('server.key'),
  }
}

/** The app's client settings for `host`, with the TCP connection sent to the local cluster instead. */
function routed(config: TeamConfig, cluster: TestCluster): pg.ClientConfig {
  return {
    ...clientConfig(config, PASSWORD),
    stream: () => {
      const socket = new Socket()
      const connect = socket.connect.bind(socket) as (port: number, host: string) => Socket
      return Object.assign(socket, { connect: () => connect(cluster.port, cluster.host) })
    },
  }
}

async function attempt(
  config: TeamConfig,
  cluster: TestCluster,
): Promise<{ ok: true; ssl: boolean } | ReturnType<typeof classify>> {
  const client = new pg.Client(routed(config, cluster))
  client.on('error', () => undefined)
  try {
    await client.connect()
    const r = await client.query<{ ssl: boolean }>('SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()')
    return { ok: true, ssl: r.rows[0]?.ssl ?? false }
  } catch (error) {
    return classify(error, config)
  } finally {
    await client.end().catch(() => undefined)
  }
}

describe.skipIf(unavailable)('TLS to the team server', () => {
  let dir: string
  let certs: ReturnType<typeof makeCertificates>
  let tlsCluster: TestCluster
  let plainCluster: TestCluster

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'closebook-tls-'))
    certs = makeCertificates(dir)
    tlsCluster = await startTestCluster({ ssl: { cert: certs.cert, key: certs.key } })
    plainCluster = await startTestCluster()
    for (const cluster of [tlsCluster, plainCluster]) {
      const admin = new pg.Client({
        host: cluster.host,
        port: cluster.port,
        user: cluster.superuser,
        password: cluster.superPassword,
        database: 'postgres',
      })
      await admin.connect()
      await admin.query(
        'DO $$ BEGIN CREATE ROLE closebook_member NOLOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$',
      )
      await addUser(admin, 'ana', PASSWORD)
      await admin.end()
    }
  }, 90_000)
  afterAll(() => {
    tlsCluster?.stop()
    plainCluster?.stop()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  const config = (host: string, caPem?: string): TeamConfig => ({
    host,
    port: 5432,
    database: 'postgres',
    user: 'ana',
    ...(caPem ? { caPem } : {}),
  })

  it('connects with the certificate verified against the CA given', async () => {
    // The CA as Settings sends it: openssl's PEM passes the contract's check unchanged in substance.
    const settings = teamConfigSchema.parse(config(SERVER_NAME, certs.ca))
    expect(settings.caPem?.trim()).toBe(certs.ca.trim())
    expect(await attempt(settings, tlsCluster)).toEqual({ ok: true, ssl: true })
  })

  it('refuses a server whose certificate an unknown CA signed, naming the TLS error code', async () => {
    const failure = await attempt(config(SERVER_NAME, certs.otherCa), tlsCluster)
    expect(failure).toMatchObject({ failure: 'tls' })
    expect((failure as Error).message).toMatch(
      /UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT_LOCALLY/,
    )
    // Nor does the system's trust store know the test CA.
    const none = await attempt(config(SERVER_NAME), tlsCluster)
    expect(none).toMatchObject({ failure: 'tls' })
  })

  it('refuses a certificate that does not name the host connected to', async () => {
    const failure = await attempt(config('other.closebook.test', certs.ca), tlsCluster)
    expect(failure).toMatchObject({ failure: 'tls' })
    expect((failure as Error).message).toContain('ERR_TLS_CERT_ALTNAME_INVALID')
  })

  it('never talks plain to a host that is not loopback: a server without TLS is refused', async () => {
    const settings = clientConfig(config(SERVER_NAME, certs.ca), PASSWORD)
    expect(settings.ssl).toMatchObject({ rejectUnauthorized: true, servername: SERVER_NAME })
    const failure = await attempt(config(SERVER_NAME, certs.ca), plainCluster)
    expect(failure).toMatchObject({ failure: 'tls' })
  })
})
