/**
 * Errors about a line of an imported file, as codes the view words in the user's language
 * (i18n `orderFiles.lineErrors.<code>`), with an English `message` kept for logs and tests.
 */

export type LineErrorCode =
  | 'column_missing'
  | 'not_a_date'
  | 'not_a_time'
  | 'date_no_year'
  | 'empty_date'
  | 'empty_amount'
  | 'not_an_amount'
  | 'other_currency'
  | 'too_many_decimals'
  | 'amount_too_large'
  | 'not_a_currency'
  | 'order_empty_date'
  | 'order_empty_amount'
  | 'order_several_currencies'
  | 'quote_unterminated'
  | 'quote_malformed'
  | 'other'

export interface CodedError {
  code: LineErrorCode
  params: Record<string, string | number>
}

const ENGLISH: Readonly<Record<LineErrorCode, (p: Record<string, string | number>) => string>> = {
  column_missing: (p) => `column "${p['column']}" not found in the file`,
  not_a_date: (p) => `not a date: ${p['text']}`,
  not_a_time: (p) => `not a time: ${p['text']}`,
  date_no_year: (p) => `not a date: ${p['text']} has no year, and the file gives none`,
  empty_date: () => 'empty date',
  empty_amount: () => 'empty amount',
  not_an_amount: (p) => `not an amount: ${p['text']}`,
  other_currency: (p) => `amount is in ${p['found']}, expected ${p['expected']}`,
  too_many_decimals: (p) => `${p['currency']} has ${p['decimals']} decimals, got ${p['text']}`,
  amount_too_large: (p) => `amount too large: ${p['text']}`,
  not_a_currency: (p) => `not a currency: ${p['text']}`,
  order_empty_date: (p) => `order ${p['order']}: empty date`,
  order_empty_amount: (p) => `order ${p['order']}: empty amount`,
  order_several_currencies: (p) => `order ${p['order']}: lines in several currencies`,
  quote_unterminated: () => 'Quoted field unterminated',
  quote_malformed: () => 'Trailing quote on quoted field is malformed',
  other: (p) => String(p['message'] ?? ''),
}

/** The English wording of a coded error (logs, tests; the view words the code itself). */
export function englishOf(error: CodedError): string {
  return ENGLISH[error.code](error.params)
}

const PATTERNS: readonly [RegExp, (m: RegExpExecArray) => CodedError][] = [
  [/^not a date: (.*)$/s, (m) => ({ code: 'not_a_date', params: { text: m[1] ?? '' } })],
  [/^not a time: (.*)$/s, (m) => ({ code: 'not_a_time', params: { text: m[1] ?? '' } })],
  [/^empty amount$/, () => ({ code: 'empty_amount', params: {} })],
  [/^not an amount: (.*)$/s, (m) => ({ code: 'not_an_amount', params: { text: m[1] ?? '' } })],
  [
    /^amount is in (\w+), expected (\w+)$/,
    (m) => ({ code: 'other_currency', params: { found: m[1] ?? '', expected: m[2] ?? '' } }),
  ],
  [
    /^(\w+) has (\d+) decimals, got (.*)$/s,
    (m) => ({
      code: 'too_many_decimals',
      params: { currency: m[1] ?? '', decimals: Number(m[2]), text: m[3] ?? '' },
    }),
  ],
  [/^amount too large: (.*)$/s, (m) => ({ code: 'amount_too_large', params: { text: m[1] ?? '' } })],
  [/^Quoted field unterminated/, () => ({ code: 'quote_unterminated', params: {} })],
  [/^Trailing quote on quoted field is malformed/, () => ({ code: 'quote_malformed', params: {} })],
]

/** The code of an English message from the cell parsers or the CSV reader ('other' when unknown). */
export function codeOfMessage(message: string): CodedError {
  for (const [re, make] of PATTERNS) {
    const m = re.exec(message)
    if (m) return make(m)
  }
  return { code: 'other', params: { message } }
}
