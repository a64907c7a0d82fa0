// The team schema's guarantees, against a real PostgreSQL started for this file: the server decides every
// write (closed month, stale version, replayed key, role), the audit trail is append-only and gapless, and
// row-level security keeps merchants apart.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { MarkWrite } from '../../../../../electron/services/team/session'
import { verifyChain } from '../../../../../electron/shared/team-chain'
import { postgresUnavailableReason } from '../support/postgres'
import { DEMO, markWrite, newKey, OTHER, startTeam, type TeamFixture } from '../support/team-fixture'

const unavailable = postgresUnavailableReason()
if (unavailable) console.warn(`team server tests skipped: ${unavailable}`)

const mark = markWrite

describe.skipIf(unavailable)('team workspace rules on PostgreSQL', () => {
  let team: TeamFixture
  beforeAll(async () => {
    team = await startTeam([
      ['ana', DEMO, 'preparer'],
      ['ben', DEMO, 'preparer'],
      ['rei', DEMO, 'reviewer'],
      ['oto', OTHER, 'preparer'],
    ])
  }, 60_000)
  afterAll(async () => team?.stop())

  it('three desktops marking the same records at once: one write per record wins, the others are refused as stale', async () => {
    const ids = Array.from({ length: 40 }, (_, i) => `ch_race_${i}`)
    const desktops = ['ana', 'ben', 'rei'].map((login) => team.session(login))
    const results = await Promise.all(
      desktops.map((d, n) =>
        d.applyMarks(
          DEMO,
          newKey(),
          ids.map((id) => mark(id, 0, { note: `by desktop ${n}` })),
        ),
      ),
    )
    for (const id of ids) {
      const outcomes = results.map((r) => r.outcomes.find((o) => o.id === id))
      expect(
        outcomes.filter((o) => o?.status === 'applied'),
        id,
      ).toHaveLength(1)
      const refused = outcomes.filter((o) => o?.status === 'refused')
      expect(refused, id).toHaveLength(2)
      for (const r of refused) expect(r).toMatchObject({ reason: 'stale', current: { version: 1 } })
    }
    const stored = await team.admin.query<{ version: number; n: string }>(
      "SELECT version, count(*) AS n FROM closebook.marks WHERE record_id LIKE 'ch_race_%' GROUP BY version",
    )
    expect(stored.rows).toEqual([{ version: 1, n: '40' }])
  })

  it('a write based on the current version applies and bumps it; one based on an older version is refused', async () => {
    const ana = team.session('ana')
    const ben = team.session('ben')
    const first = await ana.applyMarks(DEMO, newKey(), [mark('ch_v', 0)])
    expect(first.outcomes[0]).toMatchObject({ status: 'applied', version: 1 })
    const second = await ben.applyMarks(DEMO, newKey(), [
      mark('ch_v', 1, { reconciled: false, note: 'recheck' }),
    ])
    expect(second.outcomes[0]).toMatchObject({ status: 'applied', version: 2 })
    const late = await ana.applyMarks(DEMO, newKey(), [mark('ch_v', 1, { note: 'mine' })])
    expect(late.outcomes[0]).toMatchObject({
      status: 'refused',
      reason: 'stale',
      current: { version: 2, reconciled: false, note: 'recheck', updatedBy: 'ben' },
    })
  })

  it('a replayed idempotency key is answered with its first outcome and writes nothing again', async () => {
    const ana = team.session('ana')
    const key = newKey()
    const first = await ana.applyMarks(DEMO, key, [mark('ch_idem', 0)])
    const head = await team.admin.query<{ seq: string }>(
      'SELECT seq FROM closebook.audit_heads WHERE merchant_id = 1',
    )
    const again = await ana.applyMarks(DEMO, key, [mark('ch_idem', 0)])
    expect(first.replayed).toBe(false)
    expect(again).toEqual({ ...first, replayed: true })
    expect(again.outcomes[0]).toMatchObject({ status: 'applied', version: 1 })
    const after = await team.admin.query<{ seq: string }>(
      'SELECT seq FROM closebook.audit_heads WHERE merchant_id = 1',
    )
    expect(after.rows).toEqual(head.rows)
    await expect(team.session('ben').applyMarks(DEMO, key, [])).rejects.toThrow(
      /idempotency key already used/,
    )
  })

  it('maker–checker: submit freezes the month, sign-off closes it, only a reviewer reopens with a reason', async () => {
    const ana = team.session('ana')
    const rei = team.session('rei')
    const month = '2026-09'
    const m = (id: string): MarkWrite => mark(id, 0, { month })
    expect((await ana.applyMarks(DEMO, newKey(), [m('ch_sep_1')])).outcomes[0]?.status).toBe('applied')
    await expect(ana.signOff(DEMO, newKey(), month, null)).rejects.toMatchObject({ failure: 'missing_role' })
    const submitted = await ana.submitMonth(DEMO, newKey(), month, null)
    expect(submitted).toMatchObject({ status: 'applied', month: { state: 'submitted', submittedBy: 'ana' } })
    expect((await ana.applyMarks(DEMO, newKey(), [m('ch_sep_2')])).outcomes[0]).toMatchObject({
      status: 'refused',
      reason: 'month_submitted',
    })
    const signed = await rei.signOff(DEMO, newKey(), month, submitted.month.version)
    expect(signed).toMatchObject({ status: 'applied', month: { state: 'signed_off', signedOffBy: 'rei' } })
    expect((await team.session('ben').applyMarks(DEMO, newKey(), [m('ch_sep_3')])).outcomes[0]).toMatchObject(
      {
        status: 'refused',
        reason: 'month_closed',
        monthState: 'signed_off',
      },
    )
    await expect(ana.reopen(DEMO, newKey(), month, 'typo')).rejects.toMatchObject({ failure: 'missing_role' })
    await expect(rei.reopen(DEMO, newKey(), month, '   ')).rejects.toThrow(/needs a reason/)
    const reopened = await rei.reopen(DEMO, newKey(), month, 'bank fee booked late')
    expect(reopened).toMatchObject({
      status: 'applied',
      month: { state: 'open', note: 'bank fee booked late' },
    })
  })

  it('a sign-off carries its payout closing into the audit chain; a malformed one is refused and changes nothing', async () => {
    const month = '2026-06'
    const submitted = await team.session('ana').submitMonth(DEMO, newKey(), month, null)
    const rei = team.session('rei')
    const fractional = { closing: { JPY: 10.5 }, paidDifferences: {} }
    await expect(rei.signOff(DEMO, newKey(), month, submitted.month.version, fractional)).rejects.toThrow(
      /payout closing is malformed/,
    )
    const extraKey = { closing: { JPY: 1 }, paidDifferences: {}, secret: 'x' }
    await expect(
      rei.signOff(DEMO, newKey(), month, submitted.month.version, extraKey as never),
    ).rejects.toThrow(/payout closing is malformed/)
    const tooLarge = { closing: { JPY: 2 ** 60 }, paidDifferences: {} }
    await expect(rei.signOff(DEMO, newKey(), month, submitted.month.version, tooLarge)).rejects.toThrow(
      /payout closing is malformed/,
    )
    expect((await team.session('ana').months(DEMO)).find((m) => m.month === month)?.state).toBe('submitted')
    const close = { closing: { JPY: -4_200, USD: 1_999 }, paidDifferences: { tr_1: 0, tr_2: -15 } }
    const signed = await rei.signOff(DEMO, newKey(), month, submitted.month.version, close)
    expect(signed).toMatchObject({ status: 'applied', month: { state: 'signed_off' } })
    const rows = await rei.pullAudit(DEMO, 0)
    const row = rows.filter((r) => r.action === 'sign_off' && r.month === month)
    expect(row).toHaveLength(1)
    expect(JSON.parse(row[0]!.payload)).toEqual({
      state: 'signed_off',
      note: '',
      version: 3,
      payoutClose: close,
    })
    expect(await verifyChain(rows)).toMatchObject({ ok: true })
  })

  it('a reviewer sends a month back with a note; the preparer cannot sign off their own submission', async () => {
    const month = '2026-08'
    const submitted = await team.session('ana').submitMonth(DEMO, newKey(), month, null)
    const back = await team.session('rei').sendBack(DEMO, newKey(), month, 'ch_12 has no receipt')
    expect(back).toMatchObject({ status: 'applied', month: { state: 'open', note: 'ch_12 has no receipt' } })
    const stale = await team.session('rei').signOff(DEMO, newKey(), month, submitted.month.version)
    expect(stale).toMatchObject({ status: 'refused', reason: 'month_open' })
  })

  it('the audit trail is numbered without gaps, linked by hash, and refuses UPDATE and DELETE for everyone', async () => {
    const rows = await team.admin.query<{ seq: string; prev_hash: string; hash: string }>(
      'SELECT seq, prev_hash, hash FROM closebook.audit WHERE merchant_id = 1 ORDER BY seq',
    )
    rows.rows.forEach((row, i) => {
      expect(Number(row.seq)).toBe(i + 1)
      expect(row.prev_hash).toBe(i === 0 ? '0'.repeat(64) : rows.rows[i - 1]?.hash)
    })
    const member = team.session('ana') as unknown as { pool: { query(sql: string): Promise<unknown> } }
    await expect(member.pool.query('DELETE FROM closebook.audit')).rejects.toThrow(/permission denied/)
    await expect(member.pool.query("UPDATE closebook.marks SET note = 'x'")).rejects.toThrow(
      /permission denied/,
    )
    await expect(team.admin.query("UPDATE closebook.audit SET actor = 'x' WHERE seq = 1")).rejects.toThrow(
      /append-only: UPDATE refused/,
    )
    await expect(team.admin.query('DELETE FROM closebook.audit')).rejects.toThrow(
      /append-only: DELETE refused/,
    )
    await expect(team.admin.query('TRUNCATE closebook.audit CASCADE')).rejects.toThrow(
      /append-only: TRUNCATE refused/,
    )
  })

  it("row-level security: merchant B's login reads none of merchant A's rows and cannot write to A", async () => {
    const oto = team.session('oto')
    await team.session('ana').applyMarks(DEMO, newKey(), [mark('ch_a_only', 0)])
    await oto.applyMarks(OTHER, newKey(), [mark('ch_b_only', 0)])
    expect(await oto.pullAudit(DEMO, 0)).toEqual([])
    expect(await oto.months(DEMO)).toEqual([])
    const mine = await oto.pullAudit(OTHER, 0)
    expect(mine.map((r) => r.seq)).toEqual([1])
    const raw = oto as unknown as { pool: { query(sql: string): Promise<{ rows: { record_id: string }[] }> } }
    const visible = await raw.pool.query('SELECT record_id FROM closebook.marks')
    expect(visible.rows).toEqual([{ record_id: 'ch_b_only' }])
    const audit = await raw.pool.query(
      'SELECT DISTINCT m.service_merchant_id AS record_id FROM closebook.audit a JOIN closebook.merchants m ON m.id = a.merchant_id',
    )
    expect(audit.rows).toEqual([{ record_id: 'mer_other' }])
    const allAudit = await raw.pool.query(
      'SELECT count(DISTINCT merchant_id)::text AS record_id FROM closebook.audit',
    )
    expect(allAudit.rows).toEqual([{ record_id: '1' }])
    await expect(oto.applyMarks(DEMO, newKey(), [mark('ch_intrude', 0)])).rejects.toMatchObject({
      failure: 'no_grant',
      message: expect.stringMatching(/no grant for merchant mer_demo/) as unknown,
    })
    expect((await team.session('ana').pullAudit(OTHER, 0)).length).toBe(0)
  })

  it('hostile text is stored exactly as given; NUL and over-long notes are refused with the record named', async () => {
    const notes = [
      `it's "quoted" \\ back\\slash`,
      "'; DROP TABLE closebook.marks; --",
      '$$; SELECT pg_sleep(10); $$',
      '経費精算 🧾 \u202e rtl',
      'x'.repeat(10_000),
    ]
    const ana = team.session('ana')
    const result = await ana.applyMarks(
      DEMO,
      newKey(),
      notes.map((note, i) => mark(`ch_text_${i}`, 0, { note })),
    )
    expect(result.outcomes.every((o) => o.status === 'applied')).toBe(true)
    const stored = await team.admin.query<{ record_id: string; note: string }>(
      "SELECT record_id, note FROM closebook.marks WHERE record_id LIKE 'ch_text_%' ORDER BY record_id",
    )
    expect(stored.rows.map((r) => r.note)).toEqual(notes)
    await expect(ana.applyMarks(DEMO, newKey(), [mark('ch_nul', 0, { note: 'a\u0000b' })])).rejects.toThrow(
      /note of charge ch_nul contains a NUL character/,
    )
    await expect(
      ana.applyMarks(DEMO, newKey(), [mark('ch_long', 0, { note: 'y'.repeat(20_001) })]),
    ).rejects.toThrow(/note of charge ch_long is 20001 characters/)
    const tables = await team.admin.query("SELECT to_regclass('closebook.marks')::text AS t")
    expect(tables.rows).toEqual([{ t: 'closebook.marks' }])
  })
})
