/**
 * How a connection's month is posted to accounting software as journal entries (仕訳): which accounts,
 * tax classes, booking and granularity. Stored per connection in the settings table and read back
 * through this schema, so a value written by an older version falls back to the defaults.
 */
import { z } from 'zod'

export const JOURNAL_FORMATS = ['freee', 'moneyforward', 'yayoi', 'plain'] as const
export type JournalFormat = (typeof JOURNAL_FORMATS)[number]

/** Tax classes by meaning; each format spells them its own way (see `TAX_CLASS_NAMES`). */
export const SALES_TAX_CLASSES = ['taxable10', 'taxable8reduced', 'exempt', 'outOfScope'] as const
export type SalesTaxClass = (typeof SALES_TAX_CLASSES)[number]
export const FEE_TAX_CLASSES = ['taxable10', 'nonTaxable'] as const
export type FeeTaxClass = (typeof FEE_TAX_CLASSES)[number]
export type TaxClassKey = `sales.${SalesTaxClass}` | `fee.${FeeTaxClass}` | 'outOfScope'

/**
 * The names each software's import expects (税込経理). They must equal a tax class registered in the
 * user's company data, so the user may override any of them in the settings.
 */
export const TAX_CLASS_NAMES: Readonly<Record<Exclude<JournalFormat, 'plain'>, Record<TaxClassKey, string>>> =
  {
    freee: {
      'sales.taxable10': '課税売上10%',
      'sales.taxable8reduced': '課税売上8%（軽）',
      'sales.exempt': '非課売上',
      'sales.outOfScope': '対象外',
      'fee.taxable10': '課対仕入10%',
      'fee.nonTaxable': '非課仕入',
      outOfScope: '対象外',
    },
    moneyforward: {
      'sales.taxable10': '課税売上 10%',
      'sales.taxable8reduced': '課税売上 8%(軽)',
      'sales.exempt': '非課税売上',
      'sales.outOfScope': '対象外',
      'fee.taxable10': '課税仕入 10%',
      'fee.nonTaxable': '非課税仕入',
      outOfScope: '対象外',
    },
    yayoi: {
      'sales.taxable10': '課税売上込10%',
      'sales.taxable8reduced': '課税売上込軽減8%',
      'sales.exempt': '非課売上',
      'sales.outOfScope': '対象外',
      'fee.taxable10': '課対仕入込10%',
      'fee.nonTaxable': '非課仕入',
      outOfScope: '対象外',
    },
  }

/** Characters a spreadsheet or an importer could take for a formula, or that break a CSV field. */
// eslint-disable-next-line no-control-regex -- NUL and line breaks are exactly what must be refused
const UNSAFE_NAME = /^[=+\-@\t\r]|[",\r\n\u0000]/

const accountName = z
  .string()
  .trim()
  .min(1, 'journal_account_required')
  .max(24, 'journal_account_too_long')
  .refine((s) => !UNSAFE_NAME.test(s), 'journal_account_unsafe')

const optionalName = z
  .string()
  .trim()
  .max(24, 'journal_account_too_long')
  .refine((s) => !UNSAFE_NAME.test(s), 'journal_account_unsafe')

/** A rate the user gives to convert another currency: accounting-currency units per 1 unit, e.g. "151.25". */
export const rateSchema = z.string().regex(/^\d{1,7}(\.\d{1,6})?$/, 'journal_rate_invalid')

export const journalSettingsSchema = z.object({
  /** Posting currency: only its records are posted (plus currencies with a rate). */
  accountingCurrency: z.string().regex(/^[A-Z]{3}$/),
  accounts: z.object({
    sales: accountName,
    receivable: accountName,
    fees: accountName,
    /** Used when `refundBooking` is `returnsAccount`. */
    refunds: accountName,
    /** Kept for deposit entries (payouts); the month's entries do not touch it. */
    bank: accountName,
  }),
  /** Optional sub-account on the receivable (e.g. the payment service's name). */
  receivableSubAccount: optionalName,
  /** Optional department on every line (replaced by the store's name when `perStore`). */
  department: optionalName,
  refundBooking: z.enum(['returnsAccount', 'reverseSales']),
  salesTaxClass: z.enum(SALES_TAX_CLASSES),
  feeTaxClass: z.enum(FEE_TAX_CLASSES),
  /** gross: sales at the charged amount, fees as an expense; net: sales net of the service's fee. */
  booking: z.enum(['gross', 'net']),
  granularity: z.enum(['day', 'month']),
  /** One voucher set per store (store name as department), or all stores merged. */
  perStore: z.boolean(),
  /** Currency → rate. A currency without a rate is listed as an exception, never converted. */
  rates: z.record(z.string().regex(/^[A-Z]{3}$/), rateSchema),
  /** Per format, tax class names that differ from `TAX_CLASS_NAMES` in the user's company data. */
  taxClassNames: z.record(z.string(), z.record(z.string(), z.string().trim().min(1).max(40))),
})
export type JournalSettings = z.infer<typeof journalSettingsSchema>

export function defaultJournalSettings(): JournalSettings {
  return {
    accountingCurrency: 'JPY',
    accounts: {
      sales: '売上高',
      receivable: '売掛金',
      fees: '支払手数料',
      refunds: '売上値引高',
      bank: '普通預金',
    },
    receivableSubAccount: '',
    department: '',
    refundBooking: 'returnsAccount',
    salesTaxClass: 'taxable10',
    // UnivaPay is a payment agent (決済代行): its fee is usually a taxable service; the user decides.
    feeTaxClass: 'taxable10',
    booking: 'gross',
    granularity: 'day',
    perStore: false,
    rates: {},
    taxClassNames: {},
  }
}

export function journalSettingsKey(connectionId: string): string {
  return `journal:${connectionId}`
}

/** The tax class name a format writes for a class, with the user's override if any. */
export function taxClassName(settings: JournalSettings, format: JournalFormat, key: TaxClassKey): string {
  if (format === 'plain') return key
  return settings.taxClassNames[format]?.[key] ?? TAX_CLASS_NAMES[format][key]
}
