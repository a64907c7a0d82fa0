import { describe, expect, it } from 'vitest'
import { demoBankStatement } from '../../../../src/export/demo-bank-statement'
import { readImportFile } from '../../../../src/import/read-file'
import { detectLayout } from '../../../../src/import/layouts'
import { composeTransfers, tieDeposits, type BankLine } from '../../../../src/reconcile/payouts'
import { change, ledger, transfer } from '../stores/payout-fixtures'

const transfers = [
  transfer('t-sep', 10_000, 'paid', '2026-10-01T00:00:00Z'),
  transfer('t-oct', 7_000, 'created', '2026-10-31T12:00:00Z'),
]
const ledgers = [ledger('l-sep', 't-sep', 10_000, '2026-09-15T00:00:00Z')]
const statusChanges = [
  change('c1', 't-sep', 'created', '2026-10-01T00:00:00Z'),
  change('c2', 't-sep', 'paid', '2026-10-10T00:00:00Z'),
]
const readings = { ledgerAmounts: 'net', transferFee: 'manual_ledger' } as const

describe('the demo bank statement', () => {
  it('is read as an SMBC statement whose every deposit ties to a paid transfer', async () => {
    const compositions = composeTransfers({ ledgers, transfers, readings, transferFees: { JPY: 440 } })
    const text = demoBankStatement({ transfers, statusChanges, compositions, timeZone: 'Asia/Tokyo' })
    const file = await readImportFile('demo.csv', new TextEncoder().encode(text))
    expect(detectLayout(file.parsed.headers)?.id).toBe('builtin:smbc')
    expect(file.parsed.rows).toEqual([['2026/10/10', '', '10000', 'ﾌﾘｺﾐ ｸﾛｰｽﾞﾌﾞﾂｸ ﾃﾞﾓ', '1010000']])
    const bankLines: BankLine[] = [
      { importId: 'demo', line: 1, day: '2026-10-10', amount: 10_000, currency: 'JPY' },
    ]
    const tie = tieDeposits({ transfers, statusChanges, compositions, bankLines, timeZone: 'Asia/Tokyo' })
    expect(tie.matches.map((m) => m.transferId)).toEqual(['t-sep'])
    expect(tie.exceptions).toEqual([])
  })
})
