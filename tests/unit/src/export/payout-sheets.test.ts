import { describe, expect, it } from 'vitest'
import type { ExportCell } from '../../../../electron/shared/contract/export'
import { isAllowedFormula } from '../../../../electron/shared/contract/export'
import { PAYOUT_SHEETS, payoutSheets } from '../../../../src/export/payout-sheets'
import { octoberRollForward } from '../../../support/payouts'

const rf = octoberRollForward()

const formula = (c: ExportCell | undefined) => (c && typeof c === 'object' && 'formula' in c ? c : null)

describe('the payout sheets of the month workbook', () => {
  const [table, activity, open, repayments, exceptions] = payoutSheets({ rollForward: rf })

  it('lists every ledger of the month and every payout movement, and every open item', () => {
    expect([table, activity, open, repayments, exceptions].map((s) => s?.spec.name)).toEqual(
      Object.values(PAYOUT_SHEETS),
    )
    expect(exceptions?.rowCount).toBe(0)
    expect(repayments?.rowCount).toBe(0)
    const rows = [...(activity?.rows() ?? [])]
    expect(rows).toHaveLength(activity?.rowCount ?? -1)
    expect(rows).toHaveLength(8 + 3 + 1 + 1) // JPY ledgers + movements, USD ledger + movement
    expect(rows.filter((r) => r[2] === 'payout').map((r) => [r[3], r[5], r[8]])).toEqual([
      ['T1', 'paid', { amount: 9_560, decimals: 0 }],
      ['T3', 'returned', { amount: -8_000, decimals: 0 }],
      ['T2', 'paid', { amount: 19_840, decimals: 0 }],
      ['TU', 'paid', { amount: 12.5, decimals: 2 }],
    ])
    expect([...(open?.rows() ?? [])].map((r) => [r[0], r[1], r[2]])).toEqual([
      ['JPY', 'notInTransfer', null],
      ['JPY', 'processing', 'T4'],
      ['JPY', 'failed', 'T3'],
    ])
  })

  it('writes each figure as an allowed formula on its own row, with the app’s figure cached', () => {
    const [jpy] = [...(table?.rows() ?? [])]
    const preamble = table?.spec.preamble?.length ?? 0
    const r = preamble + 2
    const closing = formula(jpy?.[7])
    expect(closing?.formula).toBe(`ROUND(B${r}+C${r}-D${r}-E${r}+F${r}-G${r},0)`)
    expect(closing?.result).toBe(9_560)
    expect(formula(jpy?.[2])?.formula).toBe(
      `ROUND(SUMIFS('Payout activity'!$G:$G,'Payout activity'!$B:$B,$A${r},'Payout activity'!$C:$C,"sale"),0)`,
    )
    const cells = [...(table?.rows() ?? []), ...(table?.spec.footer ?? [])].flat()
    for (const c of cells) {
      const f = formula(c)
      if (f) expect(isAllowedFormula(f.formula), f.formula).toBe(true)
    }
  })

  it('ends with a Control block whose figures are 0 for a month that ties', () => {
    const footer = table?.spec.footer ?? []
    const controls = footer.slice(
      footer.findIndex((row) => typeof row[0] === 'string' && row[0].startsWith('Control')) + 1,
    )
    expect(controls.map((row) => [row[0], formula(row[8])?.result, formula(row[9])?.result])).toEqual([
      ['JPY', 0, 0],
      ['USD', 0, 0],
    ])
  })
})

describe('the Payout repayments sheet', () => {
  it('lists each repayment of the month with its currency, the two transfers, the amount and the evidence', () => {
    const base = octoberRollForward()
    const withRepayments = {
      ...base,
      currencies: base.currencies.map((c) =>
        c.currency === 'JPY'
          ? {
              ...c,
              repayments: [
                {
                  transferId: 'tf-f',
                  byTransferId: 'tf-r',
                  currency: 'JPY',
                  amount: 5_000,
                  ledgerCount: 2,
                  evidence: 'note' as const,
                },
                {
                  transferId: null,
                  byTransferId: 'tf-r',
                  currency: 'JPY',
                  amount: 700,
                  ledgerCount: 1,
                  evidence: 'amount' as const,
                },
              ],
            }
          : c,
      ),
    }
    const sheet = payoutSheets({ rollForward: withRepayments }).find(
      (s) => s.spec.name === PAYOUT_SHEETS.repayments,
    )
    expect(sheet?.spec.columns.map((c) => c.header)).toEqual([
      'Currency',
      'Owed by',
      'Paid with transfer',
      'Ledgers',
      'Amount',
      'How it is known',
    ])
    expect(sheet?.rowCount).toBe(2)
    expect([...(sheet?.rows() ?? [])]).toEqual([
      [
        'JPY',
        'tf-f',
        'tf-r',
        2,
        { amount: 5_000, decimals: 0 },
        "the paying transfer's note names the transfer it repays",
      ],
      [
        'JPY',
        'Ledgers carried over without a transfer',
        'tf-r',
        1,
        { amount: 700, decimals: 0 },
        'the paying transfer exceeds its own ledgers by exactly what was owed',
      ],
    ])
  })
})
