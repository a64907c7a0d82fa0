/**
 * Per connection, what the payout figures follow where the data cannot tell (DESIGN §4): ledger amounts
 * net or gross, the transfer fee a manual ledger inside the transfer or deducted by the bank, and the
 * transfer fee with tax per currency (minor units). Until the user saves one, the sandbox's defaults
 * (electron/sandbox/README.md) and the Matching payout model's fee (JPY) apply.
 */
import { z } from 'zod'
import { appCache } from '../db/cache'
import { normalizeCurrency } from '../domain/currency'
import type { PayoutReadings } from '../domain/payouts'
import { transferFeeWithTax } from '../reconcile/deposits'
import type { WatchedInput } from '../db/table-changes'
import { PAYOUT_MODEL_KEY_PREFIX, readPayoutModel } from './match-store'

/** What the data is read by where it cannot tell, until the connection has a setting. */
export const DEFAULT_READINGS: PayoutReadings = { ledgerAmounts: 'net', transferFee: 'manual_ledger' }

export interface PayoutReadingSetting {
  readings: PayoutReadings
  /** The transfer fee with tax per currency code, in minor units (a currency absent: no fee known). */
  transferFees: Record<string, number>
  /** `saved`: the user chose these; `default`: nothing saved for the connection yet. */
  origin: 'saved' | 'default'
}

const CURRENCY = /^[A-Z]{3}$/

const storedSchema = z.object({
  readings: z.object({
    ledgerAmounts: z.enum(['net', 'gross']),
    transferFee: z.enum(['manual_ledger', 'bank_deducted']),
  }),
  transferFees: z.record(z.string().regex(CURRENCY), z.number().int().min(0).max(Number.MAX_SAFE_INTEGER)),
})

const SETTING_KEY_PREFIX = 'payoutReadings:'
const settingKey = (connectionId: string): string => `${SETTING_KEY_PREFIX}${connectionId}`

/** The settings payout figures are read with: a write to any other setting leaves them as they are. */
export const PAYOUT_SETTINGS: WatchedInput = {
  table: 'settings',
  keyPrefixes: [SETTING_KEY_PREFIX, PAYOUT_MODEL_KEY_PREFIX],
}

/** Why a setting was refused: the field, so the view can say which one. */
export class PayoutReadingSettingError extends Error {
  constructor(
    readonly field: 'currency' | 'fee',
    readonly value: string,
  ) {
    super(`payout reading setting: bad ${field} ${JSON.stringify(value)}`)
    this.name = 'PayoutReadingSettingError'
  }
}

/** The connection's setting, or the defaults (a stored value that does not parse counts as none). */
export async function readPayoutReadingSetting(connectionId: string): Promise<PayoutReadingSetting> {
  const raw = await appCache().settings.getRaw(settingKey(connectionId))
  const parsed = storedSchema.safeParse(raw)
  if (parsed.success) return { ...parsed.data, origin: 'saved' }
  const model = await readPayoutModel(connectionId)
  return {
    readings: { ...DEFAULT_READINGS },
    transferFees: { JPY: transferFeeWithTax(model.transferFee, model.transferFeeTaxPercent) },
    origin: 'default',
  }
}

/**
 * Saves the connection's setting. Currency codes are normalized (`jpy` → `JPY`); a code that is not
 * three letters, a fee that is not a whole non-negative number of minor units, or a currency given twice
 * is refused with the field and nothing is saved.
 */
export async function savePayoutReadingSetting(
  connectionId: string,
  readings: PayoutReadings,
  fees: readonly { currency: string; fee: number }[],
): Promise<PayoutReadingSetting> {
  const transferFees: Record<string, number> = {}
  for (const { currency, fee } of fees) {
    const code = normalizeCurrency(currency.trim())
    if (!CURRENCY.test(code) || code in transferFees)
      throw new PayoutReadingSettingError('currency', currency)
    if (!Number.isSafeInteger(fee) || fee < 0) throw new PayoutReadingSettingError('fee', String(fee))
    transferFees[code] = fee
  }
  const value = storedSchema.parse({ readings, transferFees })
  await appCache().settings.set(settingKey(connectionId), value)
  return { ...value, origin: 'saved' }
}

/** Forgets the connection's setting: the defaults apply again. */
export async function resetPayoutReadingSetting(connectionId: string): Promise<void> {
  await appCache().settings.delete(settingKey(connectionId))
}
