// The month workbook names the team close: preparer, reviewer and their times in the Summary's header, and
// the verified audit chain head on the Audit sheet; a connection not shared with a team adds nothing.
import { describe, expect, it } from 'vitest'
import { buildMonthWorkbook, SHEETS } from '../../../src/export/month-workbook'
import { wallClockMs } from '../../../src/export/sheet-values'
import type { WorkbookTeamClose } from '../../../src/export/team-close-rows'
import { jpyMonth, TZ } from './fixtures'

const team: WorkbookTeamClose = {
  state: 'signed_off',
  preparedBy: 'ana',
  submittedAt: '2026-11-01T00:30:00.000000Z',
  signedOffBy: 'rei',
  signedOffAt: '2026-11-02T09:15:00.000000Z',
  chainThrough: 42,
  chainHead: 'ab'.repeat(32),
  brokenAt: null,
}

const sheetOf = (t: WorkbookTeamClose | null, name: string) =>
  buildMonthWorkbook({ ...jpyMonth(), team: t }).sheets.find((s) => s.spec.name === name)

describe('the team close in the month workbook', () => {
  it('names preparer and reviewer with their times (in the accounting time zone) and the chain head', () => {
    const rows = sheetOf(team, SHEETS.summary)?.spec.preamble ?? []
    const row = (label: string) => rows.find((r) => r[0] === label)?.[1]
    expect(row('Team close')).toBe('Signed off on the team server')
    expect(row('Prepared by')).toBe('ana')
    expect(row('Submitted at')).toEqual({ date: wallClockMs(Date.parse('2026-11-01T00:30:00Z'), TZ) })
    expect(row('Signed off by')).toBe('rei')
    expect(row('Signed off at')).toEqual({ date: wallClockMs(Date.parse('2026-11-02T09:15:00Z'), TZ) })
    expect(row('Team audit')).toBe(`audit verified through #42, hash ${'ab'.repeat(32)}`)
  })

  it('states the chain head on the Audit sheet, and where it breaks', () => {
    expect(sheetOf(team, SHEETS.audit)?.spec.preamble?.[0]).toEqual([
      `Team audit trail on the server: audit verified through #42, hash ${'ab'.repeat(32)}.`,
    ])
    expect(sheetOf({ ...team, brokenAt: 43 }, SHEETS.audit)?.spec.preamble?.[0]?.[0]).toContain(
      'the chain breaks at #43',
    )
  })

  it('adds nothing for a connection not shared with a team', () => {
    expect(sheetOf(null, SHEETS.audit)?.spec.preamble).toBeUndefined()
    const labels = (sheetOf(null, SHEETS.summary)?.spec.preamble ?? []).map((r) => r[0])
    expect(labels).not.toContain('Team close')
    expect(labels).not.toContain('Team audit')
  })
})
