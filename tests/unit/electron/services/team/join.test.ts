// Joining a workspace: a desktop uploads the marks it already holds once, under a join key of its own;
// what contradicts the server (a closed or submitted month, another mark on the record) is refused and
// listed with the server's state, and a retried join is answered with its first outcome. A login lists the
// merchants granted to it, and only those. Against a real PostgreSQL started for this file.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { JoinMark } from '../../../../../electron/services/team/session'
import { postgresUnavailableReason } from '../support/postgres'
import { DEMO, markWrite, newKey, OTHER, startTeam, type TeamFixture } from '../support/team-fixture'

const unavailable = postgresUnavailableReason()
if (unavailable) console.warn(`team join tests skipped: ${unavailable}`)

const held = (id: string, month: string, extra: Partial<JoinMark> = {}): JoinMark => ({
  kind: 'charge',
  id,
  month,
  reconciled: true,
  note: '',
  ...extra,
})

describe.skipIf(unavailable)('joining a team workspace', () => {
  let team: TeamFixture
  beforeAll(async () => {
    team = await startTeam([
      ['ana', DEMO, 'preparer'],
      ['ben', DEMO, 'preparer'],
      ['ben', OTHER, 'reviewer'],
      ['rei', DEMO, 'reviewer'],
    ])
    await team.admin.query(
      "INSERT INTO closebook.stores (merchant_id, service_store_id, name) SELECT id, 'st_1', 'Shibuya' FROM closebook.merchants WHERE service_merchant_id = 'mer_demo'",
    )
  }, 60_000)
  afterAll(async () => team?.stop())

  it('uploads what the server lacks, agrees with what it holds, and refuses and lists what contradicts it', async () => {
    const ana = team.session('ana')
    // The server already holds: a closed September, an October mark the same as ben's, one that differs.
    await ana.applyMarks(DEMO, newKey(), [markWrite('ch_sep', 0, { month: '2026-09' })])
    const submitted = await ana.submitMonth(DEMO, newKey(), '2026-09', null)
    await team.session('rei').signOff(DEMO, newKey(), '2026-09', submitted.month.version)
    await ana.applyMarks(DEMO, newKey(), [
      markWrite('ch_same', 0, { note: 'agreed' }),
      markWrite('ch_other', 0, { note: "ana's note" }),
    ])
    const ben = team.session('ben')
    const key = `join:desktop-b:${newKey()}`
    const upload = [
      held('ch_new', '2026-10', { note: "'; DROP TABLE closebook.marks; --" }),
      held('ch_same', '2026-10', { note: 'agreed' }),
      held('ch_other', '2026-10', { note: "ben's note" }),
      held('ch_sep_late', '2026-09'),
      held('ch_sep', '2026-10'),
    ]
    const joined = await ben.joinMarks(DEMO, key, upload)
    expect(joined.replayed).toBe(false)
    expect(joined.outcomes.map((o) => [o.id, o.status, o.reason ?? null, o.version ?? null])).toEqual([
      ['ch_new', 'applied', null, 1],
      ['ch_same', 'same', null, 1],
      ['ch_other', 'refused', 'conflict', null],
      ['ch_sep_late', 'refused', 'month_closed', null],
      ['ch_sep', 'refused', 'month_mismatch', null],
    ])
    expect(joined.outcomes[2]?.current).toMatchObject({ version: 1, note: "ana's note", updatedBy: 'ana' })
    expect(joined.outcomes[3]?.monthState).toBe('signed_off')
    const stored = await team.admin.query<{ record_id: string; note: string; updated_by: string }>(
      "SELECT record_id, note, updated_by FROM closebook.marks WHERE record_id IN ('ch_new', 'ch_other', 'ch_sep_late') ORDER BY record_id",
    )
    expect(stored.rows).toEqual([
      { record_id: 'ch_new', note: "'; DROP TABLE closebook.marks; --", updated_by: 'ben' },
      { record_id: 'ch_other', note: "ana's note", updated_by: 'ana' },
    ])
  })

  it('a retried join (same join key) gets its first answer and writes nothing twice', async () => {
    const ben = team.session('ben')
    const key = `join:desktop-c:${newKey()}`
    const upload = Array.from({ length: 500 }, (_, i) => held(`ch_retry_${i}`, '2026-11', { note: `n${i}` }))
    const first = await ben.joinMarks(DEMO, key, upload)
    const audit = async (): Promise<number> =>
      Number(
        (
          await team.admin.query<{ n: string }>(
            "SELECT count(*) AS n FROM closebook.audit WHERE payload LIKE '%ch_retry_%'",
          )
        ).rows[0]?.n,
      )
    expect(await audit()).toBe(500)
    const again = await ben.joinMarks(DEMO, key, upload)
    expect(again.replayed).toBe(true)
    expect(again.outcomes).toEqual(first.outcomes)
    expect(await audit()).toBe(500)
    // Another login cannot take over the key: the server refuses it rather than answering ben's outcome.
    await expect(team.session('ana').joinMarks(DEMO, key, upload)).rejects.toMatchObject({
      failure: 'invalid_input',
    })
  })

  it('refuses a join with a NUL or an over-long note, naming the record, before anything is sent', async () => {
    const ben = team.session('ben')
    await expect(
      ben.joinMarks(DEMO, newKey(), [held('ch_nul', '2026-10', { note: 'a\u0000b' })]),
    ).rejects.toThrow(/charge ch_nul contains a NUL/)
    await expect(
      ben.joinMarks(DEMO, newKey(), [held('ch_long', '2026-10', { note: 'x'.repeat(20_001) })]),
    ).rejects.toThrow(/charge ch_long is 20001 characters/)
  })

  it('a login lists exactly the merchants granted to it, with mode, role and stores', async () => {
    expect(await team.session('ana').grants()).toEqual([
      {
        merchantId: 'mer_demo',
        mode: 'test',
        name: '',
        role: 'preparer',
        stores: [{ storeId: 'st_1', name: 'Shibuya' }],
      },
    ])
    const ben = await team.session('ben').grants()
    expect(ben.map((g) => [g.merchantId, g.role, g.stores.length])).toEqual([
      ['mer_demo', 'preparer', 1],
      ['mer_other', 'reviewer', 0],
    ])
  })
})
