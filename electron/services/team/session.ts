// One desktop's connection to the team workspace: the write functions (each call carries the idempotency
// key its outbox entry was given, so a resend after a lost answer is answered with the first outcome), the
// audit pull after a number, and LISTEN for new audit rows. Only the functions are called; the server decides.
import pg from 'pg'
import type { TeamPayoutClose } from '../../shared/contract'
import type { TeamAuditRow } from '../../shared/team-chain'
import { classify, clientConfig, TeamError, type TeamConfig } from './connection'

export interface MerchantRef {
  merchantId: string
  mode: 'live' | 'test'
}

export interface MarkWrite {
  kind: 'charge' | 'refund'
  id: string
  month: string
  reconciled: boolean
  note: string
  /** The version this desktop last saw; 0 when it never saw the record on the server. */
  baseVersion: number
}

export interface MarkOutcome {
  kind: 'charge' | 'refund'
  id: string
  status: 'applied' | 'refused'
  reason?: 'stale' | 'month_closed' | 'month_submitted' | 'month_mismatch'
  version?: number
  seq?: number
  monthState?: string
  current?: {
    version: number
    reconciled: boolean
    note: string
    month: string
    updatedBy: string
    updatedAt: string
  } | null
}

export interface MarksResult {
  key: string
  replayed: boolean
  auditHead: number
  outcomes: MarkOutcome[]
}

export interface MonthState {
  month: string
  state: 'open' | 'submitted' | 'signed_off'
  version: number
  submittedBy: string | null
  submittedAt: string | null
  signedOffBy: string | null
  signedOffAt: string | null
  note: string
}

export interface MonthResult {
  key: string
  replayed: boolean
  auditHead: number
  status: 'applied' | 'refused'
  reason: string | null
  month: MonthState
}

/** A mark a desktop already holds when it joins: no base version, the server has never seen it from here. */
export type JoinMark = Omit<MarkWrite, 'baseVersion'>

export interface JoinOutcome {
  kind: 'charge' | 'refund'
  id: string
  /** applied: the server had no mark; same: it holds this one already; refused: it contradicts the server. */
  status: 'applied' | 'same' | 'refused'
  reason?: 'month_closed' | 'month_submitted' | 'month_mismatch' | 'conflict'
  version?: number
  seq?: number
  monthState?: string
  current?: MarkOutcome['current']
}

export interface JoinResult {
  key: string
  replayed: boolean
  auditHead: number
  outcomes: JoinOutcome[]
}

/** A merchant granted to the login, as the server names it, with the login's role and the stores. */
export interface Grant {
  merchantId: string
  mode: 'live' | 'test'
  name: string
  role: 'preparer' | 'reviewer' | 'admin'
  stores: { storeId: string; name: string }[]
}

export const JOIN_MAX = 100_000

export const NOTE_MAX = 20_000

/** Refuses text PostgreSQL cannot store (NUL) or longer than the server takes, naming the record. */
export function checkText(label: string, text: string): void {
  if (text.includes('\u0000')) {
    throw new TeamError(
      'invalid_input',
      `${label} contains a NUL character, which PostgreSQL text cannot hold; remove it.`,
    )
  }
  if (text.length > NOTE_MAX) {
    throw new TeamError(
      'invalid_input',
      `${label} is ${text.length} characters; the team workspace keeps at most ${NOTE_MAX}.`,
    )
  }
}

export class TeamSession {
  private readonly pool: pg.Pool
  private listener: pg.Client | null = null

  constructor(
    private readonly config: TeamConfig,
    private readonly password: string,
  ) {
    this.pool = new pg.Pool({ ...clientConfig(config, password), max: 2 })
    this.pool.on('error', () => undefined)
  }

  /**
   * One query on a pooled client that swallows its own 'error' event while checked out: a server killed
   * mid-query rejects the query (the caller sees `unreachable`) instead of crashing main with an
   * unhandled error event.
   */
  private async query<R extends pg.QueryResultRow>(
    sql: string,
    params: unknown[],
  ): Promise<pg.QueryResult<R>> {
    const client = await this.pool.connect()
    const ignore = (): void => undefined
    client.on('error', ignore)
    let failed: unknown = null
    try {
      return await client.query<R>(sql, params)
    } catch (error) {
      failed = error
      throw error
    } finally {
      // A client whose query failed is dropped rather than reused: its connection may be broken. Its
      // 'error' listener stays, since the socket's end can still be reported after the release.
      client.release(failed instanceof Error ? failed : undefined)
      if (!failed) client.off('error', ignore)
    }
  }

  private async call<T>(sql: string, params: unknown[]): Promise<T> {
    try {
      const result = await this.query<{ o: T }>(sql, params)
      const row = result.rows[0]
      if (!row) throw new TeamError('server_error', 'The team server answered nothing.')
      return row.o
    } catch (error) {
      throw classify(error, this.config)
    }
  }

  async applyMarks(merchant: MerchantRef, key: string, marks: MarkWrite[]): Promise<MarksResult> {
    for (const m of marks) checkText(`The note of ${m.kind} ${m.id}`, m.note)
    return this.call<MarksResult>('SELECT closebook.apply_marks($1, $2, $3, $4::jsonb) AS o', [
      merchant.merchantId,
      merchant.mode,
      key,
      JSON.stringify(marks),
    ])
  }

  /**
   * Uploads the marks this desktop held before joining, under its join key (one per desktop and merchant:
   * a retried join is answered with the first outcome). What contradicts the server comes back refused.
   */
  async joinMarks(merchant: MerchantRef, key: string, marks: JoinMark[]): Promise<JoinResult> {
    if (marks.length > JOIN_MAX) {
      throw new TeamError('invalid_input', `${marks.length} marks to join; at most ${JOIN_MAX} at once.`)
    }
    for (const m of marks) checkText(`The note of ${m.kind} ${m.id}`, m.note)
    return this.call<JoinResult>('SELECT closebook.join_marks($1, $2, $3, $4::jsonb) AS o', [
      merchant.merchantId,
      merchant.mode,
      key,
      JSON.stringify(marks),
    ])
  }

  /** The merchants granted to this login (only its own: the function reads the caller's grants). */
  async grants(): Promise<Grant[]> {
    try {
      const result = await this.query<Grant>(
        'SELECT merchant_id AS "merchantId", mode, name, role, stores FROM closebook.my_grants()',
        [],
      )
      return result.rows
    } catch (error) {
      throw classify(error, this.config)
    }
  }

  async submitMonth(
    merchant: MerchantRef,
    key: string,
    month: string,
    baseVersion: number | null,
  ): Promise<MonthResult> {
    return this.monthCall('submit_month', merchant, key, month, baseVersion)
  }

  /**
   * Signs the month off; `payoutClose` (the signer's payout closing) goes into the
   * sign-off's audit row, where every desktop pulling it finds it. The server checks its shape.
   */
  async signOff(
    merchant: MerchantRef,
    key: string,
    month: string,
    baseVersion: number | null,
    payoutClose: TeamPayoutClose | null = null,
  ): Promise<MonthResult> {
    return this.call<MonthResult>('SELECT closebook.sign_off($1, $2, $3, $4, $5, $6::jsonb) AS o', [
      merchant.merchantId,
      merchant.mode,
      key,
      month,
      baseVersion,
      payoutClose === null ? null : JSON.stringify(payoutClose),
    ])
  }

  async sendBack(merchant: MerchantRef, key: string, month: string, note: string): Promise<MonthResult> {
    checkText('The note', note)
    return this.monthCall('send_back', merchant, key, month, note)
  }

  async reopen(merchant: MerchantRef, key: string, month: string, reason: string): Promise<MonthResult> {
    checkText('The reason', reason)
    return this.monthCall('reopen_month', merchant, key, month, reason)
  }

  private async monthCall(
    fn: 'submit_month' | 'send_back' | 'reopen_month',
    merchant: MerchantRef,
    key: string,
    month: string,
    last: number | string | null,
  ): Promise<MonthResult> {
    return this.call<MonthResult>(`SELECT closebook.${fn}($1, $2, $3, $4, $5) AS o`, [
      merchant.merchantId,
      merchant.mode,
      key,
      month,
      last,
    ])
  }

  /** Audit rows after `afterSeq`, oldest first, at most `limit`; row-level security shows only granted merchants. */
  async pullAudit(merchant: MerchantRef, afterSeq: number, limit = 5000): Promise<TeamAuditRow[]> {
    try {
      const result = await this.query<TeamAuditRow>(
        `SELECT a.merchant_id::text AS "merchantKey", a.seq::float8 AS seq,
                to_char(a.at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS at,
                a.actor::text AS actor, a.action, a.month, a.payload, a.prev_hash AS "prevHash", a.hash
           FROM closebook.audit a JOIN closebook.merchants m ON m.id = a.merchant_id
          WHERE m.service_merchant_id = $1 AND m.mode = $2 AND a.seq > $3
          ORDER BY a.seq LIMIT $4`,
        [merchant.merchantId, merchant.mode, afterSeq, limit],
      )
      return result.rows
    } catch (error) {
      throw classify(error, this.config)
    }
  }

  async months(merchant: MerchantRef): Promise<MonthState[]> {
    try {
      const result = await this.query<MonthState>(
        `SELECT mo.month, mo.state, mo.version, mo.submitted_by::text AS "submittedBy",
                to_char(mo.submitted_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS "submittedAt",
                mo.signed_off_by::text AS "signedOffBy",
                to_char(mo.signed_off_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS "signedOffAt", mo.note
           FROM closebook.months mo JOIN closebook.merchants m ON m.id = mo.merchant_id
          WHERE m.service_merchant_id = $1 AND m.mode = $2 ORDER BY mo.month`,
        [merchant.merchantId, merchant.mode],
      )
      return result.rows
    } catch (error) {
      throw classify(error, this.config)
    }
  }

  /**
   * Calls `wake` whenever the server appends audit rows (any granted merchant), and `lost` once when the
   * listening connection ends (the server restarted, the network dropped); polling stays the fallback.
   */
  async listen(wake: () => void, lost: () => void = () => undefined): Promise<void> {
    await this.listener?.end().catch(() => undefined)
    this.listener = null
    const client = new pg.Client(clientConfig(this.config, this.password))
    let ended = false
    const end = (): void => {
      if (ended) return
      ended = true
      lost()
    }
    client.on('error', end)
    client.on('end', end)
    client.on('notification', () => wake())
    try {
      await client.connect()
      await client.query('LISTEN closebook_audit')
    } catch (error) {
      ended = true
      await client.end().catch(() => undefined)
      throw classify(error, this.config)
    }
    this.listener = client
  }

  async close(): Promise<void> {
    await this.listener?.end().catch(() => undefined)
    this.listener = null
    await this.pool.end().catch(() => undefined)
  }
}
