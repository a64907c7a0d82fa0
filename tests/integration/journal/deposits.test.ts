/**
 * The deposit entries of a month's payouts, written in every format and read back by each vendor's
 * import rules (vendor-rules.ts): each balances, the transfer fee carries the vendor's taxable-purchase
 * class, and the receivable credited ties to the roll-forward.
 */
import { describe, expect, it } from 'vitest'
import { encodeShiftJis } from '../../../electron/shared/shift-jis'
import { buildDepositJournal, depositJournalTie } from '../../../src/export/journal/deposits'
import {
  FREEE_HEADER,
  journalFiles,
  MONEYFORWARD_HEADER,
  traceFile,
  type JournalFile,
} from '../../../src/export/journal/formats'
import { defaultJournalSettings } from '../../../src/export/journal/settings'
import { octoberRollForward } from '../../support/payouts'
import { readFreee, readMoneyForward, readYayoi, type ParsedVoucher } from './vendor-rules'
import { LABELS } from './labels'

const settings = defaultJournalSettings()
const rf = octoberRollForward()
const build = buildDepositJournal({ rollForward: rf, settings })
const credited = depositJournalTie(build, rf).find((t) => t.currency === 'JPY')

function bytesOf(f: JournalFile): Uint8Array {
  return f.encoding === 'shift_jis' ? encodeShiftJis(f.text) : new TextEncoder().encode(f.text)
}

function expectTiesToRollForward(vouchers: ParsedVoucher[], feeTax: string): void {
  const by = new Map<string, number>()
  const add = (k: string, n: number) => by.set(k, (by.get(k) ?? 0) + n)
  for (const v of vouchers)
    for (const r of v.rows) {
      add(`Dr ${r.debit}`, r.debitAmount)
      add(`Cr ${r.credit}`, r.creditAmount)
      if (r.debit === '支払手数料') expect(r.debitTax).toBe(feeTax)
    }
  expect((by.get('Cr 売掛金') ?? 0) - (by.get('Dr 売掛金') ?? 0)).toBe(credited?.credited)
  expect(by.get('Dr 支払手数料')).toBe(880)
  expect((by.get('Dr 普通預金') ?? 0) - (by.get('Cr 普通預金') ?? 0)).toBe(9_560 + 19_840 - 8_000)
}

describe('deposit entries in each vendor’s import format', () => {
  it('ties to the roll-forward before any file is written', () => {
    expect(credited).toMatchObject({
      credited: 22_280,
      payouts: 21_400,
      transferFeeLedgers: 880,
      difference: 0,
    })
  })

  it('freee', () => {
    const vouchers = journalFiles('freee', build, settings, LABELS).flatMap((f) =>
      readFreee(bytesOf(f), FREEE_HEADER),
    )
    expect(vouchers).toHaveLength(3)
    expectTiesToRollForward(vouchers, '課対仕入10%')
  })

  it('Money Forward', () => {
    const [file] = journalFiles('moneyforward', build, settings, LABELS)
    expectTiesToRollForward(
      readMoneyForward(bytesOf(file as JournalFile), MONEYFORWARD_HEADER),
      '課税仕入 10%',
    )
  })

  it('Yayoi', () => {
    const [file] = journalFiles('yayoi', build, settings, LABELS)
    expectTiesToRollForward(readYayoi(bytesOf(file as JournalFile)), '課対仕入込10%')
  })

  it('plain CSV and the trace name the transfer behind each line', () => {
    const [plain] = journalFiles('plain', build, settings, LABELS)
    expect(plain?.text).toContain('入金（振込） 2026-10-05 1件')
    expect(traceFile(build, LABELS).text).toContain(',振込,T1,')
  })
})
