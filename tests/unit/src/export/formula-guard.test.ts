import { describe, expect, it } from 'vitest'
import {
  exportCellSchema,
  isAllowedFormula,
  isExportCell,
  isFormulaLike,
  neutralizeFormulaText,
} from '../../../../electron/shared/contract/export'

describe('formula-injection guard', () => {
  it.each([
    '=1+1',
    '+1',
    '-2+3',
    '@SUM(A1)',
    '\t=1',
    '\r=1',
    "=cmd|' /C calc'!A0",
    '=HYPERLINK("http://evil.example","x")',
    '＝1+1',
    '＋1',
    '－1',
    '＠SUM(A1)',
  ])('neutralizes %j with a leading apostrophe', (text) => {
    expect(isFormulaLike(text)).toBe(true)
    expect(neutralizeFormulaText(text)).toBe(`'${text}`)
  })

  // Hidden or trimmed characters before the trigger: a spreadsheet (or the XML writer, which drops NUL)
  // may not keep them, and then the text is a formula again.
  it.each([
    ' =1',
    '   +1',
    '\u00A0=1+1',
    '\u3000=1+1',
    '\u200B=1+1',
    '\u200D\u2060-1',
    '\uFEFF@SUM(A1)',
    '\u0000=1+1',
    '\u0000\u0001 =1',
    '\n=1',
    '\u2003\u202F\u205F＝1',
    ' \t1',
  ])('neutralizes %j: the trigger behind leading spaces, NBSP, U+3000, zero-width or NUL', (text) => {
    expect(isFormulaLike(text)).toBe(true)
    expect(neutralizeFormulaText(text)).toBe(`'${text}`)
  })

  it.each(['', 'plain', ' ', '\u3000', "'=1", ' 1-2', 'ORD-1', '1-2', 'a=b', '山田 太郎', '\u00A0山田'])(
    'leaves %j as it is',
    (text) => {
      expect(isFormulaLike(text)).toBe(false)
      expect(neutralizeFormulaText(text)).toBe(text)
    },
  )
})

describe('formulas the workbook may carry', () => {
  it('allows the Summary functions over quoted sheet ranges', () => {
    expect(
      isAllowedFormula(`ROUND(SUMIFS('Transactions'!$K:$K,'Transactions'!$E:$E,$A11,'A (b)'!$B:$B,"x("),2)`),
    ).toBe(true)
    expect(isAllowedFormula('COUNTIFS(A:A,"charge")')).toBe(true)
    expect(isAllowedFormula('F11-H11-I11')).toBe(true)
  })

  it.each([
    '=SUM(A1)',
    'WEBSERVICE("http://x")',
    'hyperlink("http://x")',
    'SUM(A1)+FILTERXML("<a/>","//a")',
    "'[book.xlsx]Sheet'!A1",
    'cmd|calc!A0',
    'SUM({1,2})',
    'INDIRECT("A1")',
    'SUM (A1)+EXEC ("x")',
  ])('refuses %j', (formula) => {
    expect(isAllowedFormula(formula)).toBe(false)
  })
})

describe('isExportCell (the fast check behind exportRowSchema)', () => {
  const samples: unknown[] = [
    null,
    'x',
    '',
    'x'.repeat(32_767),
    'x'.repeat(32_768),
    1.5,
    -0,
    Number.NaN,
    Number.POSITIVE_INFINITY,
    true,
    undefined,
    [],
    { date: 0 },
    { date: Number.NaN },
    { date: 0, x: 1 },
    { amount: 1.5, decimals: 2 },
    { amount: 1, decimals: 5 },
    { amount: 1, decimals: 1.5 },
    { amount: 1 },
    { formula: 'SUM(A1:A2)' },
    { formula: 'SUM(A1:A2)', result: 3, decimals: 2 },
    { formula: 'SUM(A1:A2)', result: 'x' },
    { formula: 'SUM(A1:A2)', result: true },
    { formula: '' },
    { formula: 'WEBSERVICE("x")' },
    { formula: 'SUM(A1)', other: 1 },
    {},
  ]
  it.each(samples.map((s) => [s]))('agrees with exportCellSchema on %j', (sample) => {
    expect(isExportCell(sample)).toBe(exportCellSchema.safeParse(sample).success)
  })
})
