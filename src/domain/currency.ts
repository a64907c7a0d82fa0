/**
 * Money in minor units (DESIGN §4): the API gives integer amounts in the currency's minor unit. They are
 * converted to major units only for display and export, with the ISO-4217 exponent, and summed as
 * integers per currency, never across currencies.
 */

/**
 * ISO-4217 minor-unit exponents of the currencies the app expects. A currency not listed is taken to
 * have 2 decimals (`DEFAULT_EXPONENT`), the most common case; add it here when it differs.
 */
export const CURRENCY_EXPONENTS: Readonly<Record<string, number>> = Object.freeze({
  JPY: 0,
  KRW: 0,
  USD: 2,
  EUR: 2,
  GBP: 2,
  AUD: 2,
  CAD: 2,
  SGD: 2,
  HKD: 2,
  CNY: 2,
  TWD: 2,
  BHD: 3,
  KWD: 3,
})

/** Exponent assumed for a currency missing from `CURRENCY_EXPONENTS`. */
export const DEFAULT_EXPONENT = 2

// Codes by the data's spelling: asked per record and amount cell by the workbook and the summaries, and a
// trim + upper-case made new strings each time. Few distinct spellings; bounded anyway.
const codeBySpelling = new Map<string, string>()

/** Upper-case currency code: the API's codes are case-insensitive, sums must not split on case. */
export function normalizeCurrency(currency: string): string {
  let code = codeBySpelling.get(currency)
  if (code === undefined) {
    code = currency.trim().toUpperCase()
    if (codeBySpelling.size >= 1_000) codeBySpelling.clear()
    codeBySpelling.set(currency, code)
  }
  return code
}

export function currencyExponent(currency: string): number {
  return CURRENCY_EXPONENTS[normalizeCurrency(currency)] ?? DEFAULT_EXPONENT
}

/** Throws unless `amount` is a safe integer: a fraction here means the data is not in minor units. */
export function assertMinorUnits(amount: number, context = 'amount'): void {
  if (!Number.isSafeInteger(amount)) {
    throw new TypeError(`${context} must be an integer in minor units, got ${String(amount)}`)
  }
}

const EXACT_QUOTIENT_LIMIT = 2 ** 50

/** 1050 JPY → 1050; 1234 USD → 12.34; 1234 KWD → 1.234. */
export function toMajorUnits(minor: number, currency: string): number {
  assertMinorUnits(minor)
  const exponent = currencyExponent(currency)
  // Up to 2^50 (11 trillion dollars in cents), minor and 10^exponent are exact and the division's error is
  // under 1/8 of the last decimal place: the quotient is already the double nearest the decimal, which is
  // what the toFixed round trip below gives (`+ 0` turns -0 into 0, as it does), without its two strings.
  if (Math.abs(minor) <= EXACT_QUOTIENT_LIMIT) return minor / 10 ** exponent + 0
  // toFixed removes binary noise (e.g. 0.1 + 0.2) so the result prints as the decimal it stands for.
  return Number((minor / 10 ** exponent).toFixed(exponent))
}

const formatters = new Map<string, Intl.NumberFormat>()

/** Localized currency text with exactly the currency's number of decimals, e.g. "$12.34", "￥1,050". */
export function formatAmount(minor: number, currency: string, locale: string): string {
  const code = normalizeCurrency(currency)
  const exponent = currencyExponent(code)
  const cacheKey = `${locale}|${code}`
  let formatter = formatters.get(cacheKey)
  if (!formatter) {
    formatter = new Intl.NumberFormat(locale, {
      style: 'currency',
      currency: code,
      minimumFractionDigits: exponent,
      maximumFractionDigits: exponent,
    })
    formatters.set(cacheKey, formatter)
  }
  return formatter.format(toMajorUnits(minor, code))
}

/**
 * Whether the API's `amount_formatted` (a number in major units) agrees with `amount` (minor units). A
 * mismatch means the exponent assumed here is wrong for the currency, so displayed values would be off.
 */
export function checkFormatted(minor: number, currency: string, formatted: number): boolean {
  if (!Number.isSafeInteger(minor) || !Number.isFinite(formatted)) return false
  const scaled = formatted * 10 ** currencyExponent(currency)
  // Relative tolerance only absorbs float noise (12.34 * 100 = 1234.0000000000002), not a digit.
  return Math.abs(scaled - minor) <= 1e-9 * Math.max(1, Math.abs(minor))
}

export interface Money {
  amount: number
  currency: string
}

/** Integer sums per (upper-case) currency, in first-seen order. Throws on a non-integer amount. */
export function sumByCurrency(items: Iterable<Money>): Map<string, number> {
  const sums = new Map<string, number>()
  for (const item of items) addToCurrency(sums, item.currency, item.amount)
  return sums
}

/** Adds `amount` to `map[currency]` in place, with the same integer checks as `sumByCurrency`. */
export function addToCurrency(map: Map<string, number>, currency: string, amount: number): void {
  const code = normalizeCurrency(currency)
  assertMinorUnits(amount, `amount (${code})`)
  const total = (map.get(code) ?? 0) + amount
  assertMinorUnits(total, `sum (${code})`)
  map.set(code, total)
}
