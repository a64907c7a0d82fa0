import { describe, expect, it } from 'vitest'
import {
  defaultJournalSettings,
  journalSettingsSchema,
  taxClassName,
  type JournalSettings,
} from '../../../../src/export/journal/settings'

function issue(over: Partial<JournalSettings>): string | undefined {
  const r = journalSettingsSchema.safeParse({ ...defaultJournalSettings(), ...over })
  return r.success ? undefined : r.error.issues[0]?.message
}

describe('journal settings', () => {
  it('accepts the defaults', () => {
    expect(issue({})).toBeUndefined()
  })

  it('refuses names a spreadsheet or importer would misread, with a specific code', () => {
    const accounts = defaultJournalSettings().accounts
    expect(issue({ accounts: { ...accounts, sales: '=HYPERLINK("x")' } })).toBe('journal_account_unsafe')
    expect(issue({ accounts: { ...accounts, fees: '手数料,売上' } })).toBe('journal_account_unsafe')
    expect(issue({ accounts: { ...accounts, bank: '' } })).toBe('journal_account_required')
    expect(issue({ accounts: { ...accounts, receivable: 'あ'.repeat(25) } })).toBe('journal_account_too_long')
    expect(issue({ department: '@dept' })).toBe('journal_account_unsafe')
  })

  it('refuses a rate that is not a plain positive decimal', () => {
    expect(issue({ rates: { USD: '151.25' } })).toBeUndefined()
    for (const bad of ['-1', '1e3', '151,25', '', 'abc'])
      expect(issue({ rates: { USD: bad } })).toBe('journal_rate_invalid')
  })

  it("spells tax classes each vendor's way, and lets the user's own names win", () => {
    const s = defaultJournalSettings()
    expect(taxClassName(s, 'freee', 'fee.nonTaxable')).toBe('非課仕入')
    expect(taxClassName(s, 'yayoi', 'sales.taxable10')).toBe('課税売上込10%')
    expect(taxClassName(s, 'moneyforward', 'outOfScope')).toBe('対象外')
    const own = { ...s, taxClassNames: { yayoi: { 'sales.taxable10': '課税売上内10%' } } }
    expect(taxClassName(own, 'yayoi', 'sales.taxable10')).toBe('課税売上内10%')
  })
})
