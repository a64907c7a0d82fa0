/**
 * Deterministic sample data for a seed: a merchant, its stores and charges with refunds, shaped to exercise
 * everything an accountant meets at month end (statuses, partial refunds, fees, two-decimal currencies,
 * Japanese names, records just either side of month boundaries in UTC and in Asia/Tokyo).
 */
import { Prng } from './prng'
import type {
  SandboxShape,
  ChargeStatus,
  RefundStatus,
  SandboxCard,
  SandboxCharge,
  SandboxMerchant,
  SandboxRefund,
  SandboxStore,
} from './model'

export interface GenerateOptions {
  seed: number
  stores: number
  records: number
  /** Microseconds, inclusive. */
  fromUs: number
  /** Microseconds, exclusive. */
  toUs: number
  /** Absent: DEFAULT_SHAPE. */
  shape?: SandboxShape
}

const LATIN_NAMES = [
  ['Emma', 'Wilson'],
  ['Liam', 'Garcia'],
  ['Olivia', 'Brown'],
  ['Noah', 'Martin'],
  ['Ava', 'Dubois'],
  ['Lucas', 'Rossi'],
  ['Mia', 'Schmidt'],
  ['Ethan', 'Nguyen'],
  ['Sofia', 'Kowalski'],
  ['Hiroshi', 'Tanaka'],
] as const
/** Japanese-script names with the romanization used for the e-mail address. */
const JAPANESE_NAMES = [
  ['山田 太郎', 'taro.yamada'],
  ['佐藤 花子', 'hanako.sato'],
  ['鈴木 一郎', 'ichiro.suzuki'],
  ['高橋 美咲', 'misaki.takahashi'],
  ['田中 健', 'ken.tanaka'],
  ['伊藤 さくら', 'sakura.ito'],
  ['渡辺 翔太', 'shota.watanabe'],
  ['中村 あおい', 'aoi.nakamura'],
  ['小林 大輔', 'daisuke.kobayashi'],
  ['加藤 結衣', 'yui.kato'],
] as const
const STORE_NAMES = [
  'Shibuya Flagship',
  '梅田店',
  'Online Shop',
  '札幌店',
  'Kyoto Gallery',
  '福岡店',
  'Pop-up',
]
const MERCHANT_NAMES = ['Sakura Goods K.K.', '株式会社みなと商会', 'Blue Harbor Trading']
/** Metadata values a spreadsheet would evaluate if written naively (formula injection), now and then. */
const HOSTILE_NOTES = [
  '=HYPERLINK("http://example.invalid","click")',
  '+81-3-0000-0000',
  '-2+3',
  '@SUM(A1:A2)',
  '\tindent',
]

const CHARGE_STATUS_WEIGHTS: [ChargeStatus, number][] = [
  ['successful', 86],
  ['authorized', 3],
  ['pending', 2],
  ['awaiting', 1],
  ['failed', 5],
  ['error', 1],
  ['canceled', 2],
]
const REFUND_STATUS_WEIGHTS: [RefundStatus, number][] = [
  ['successful', 90],
  ['pending', 5],
  ['failed', 5],
]

const US_PER_MS = 1000
const HOUR_US = 3600 * 1000 * US_PER_MS
const DAY_US = 24 * HOUR_US

export function generateMerchant(
  seed: number,
  storeCount: number,
): { merchant: SandboxMerchant; stores: SandboxStore[] } {
  const rng = new Prng(`merchant:${seed}`)
  const merchant = { id: rng.uuid(), name: rng.pick(MERCHANT_NAMES) }
  const stores: SandboxStore[] = []
  for (let i = 0; i < storeCount; i++) {
    const base = STORE_NAMES[i % STORE_NAMES.length] as string
    stores.push({
      id: rng.uuid(),
      name: i < STORE_NAMES.length ? base : `${base} ${Math.floor(i / STORE_NAMES.length) + 1}`,
    })
  }
  return { merchant, stores }
}

/** Month starts (UTC midnight, and Tokyo midnight = 15:00Z the day before) inside the range, in µs. */
function monthBoundaries(fromUs: number, toUs: number): number[] {
  const out: number[] = []
  const start = new Date(fromUs / 1000)
  for (let y = start.getUTCFullYear(), m = start.getUTCMonth(); ; m++) {
    const utc = Date.UTC(y, m, 1) * 1000
    if (utc > toUs + DAY_US) break
    for (const b of [utc, utc - 9 * HOUR_US]) if (b > fromUs && b < toUs) out.push(b)
  }
  return out
}

export class ChargeFactory {
  private orderSeq = 0

  constructor(
    private readonly rng: Prng,
    private readonly stores: SandboxStore[],
  ) {}

  card(): SandboxCard {
    const rng = this.rng
    const japanese = rng.chance(0.5)
    let name: string
    let local: string
    if (japanese) {
      const [kanji, romaji] = rng.pick(JAPANESE_NAMES)
      name = kanji
      local = romaji
    } else {
      const [first, last] = rng.pick(LATIN_NAMES)
      name = `${first} ${last}`
      local = `${first}.${last}`.toLowerCase()
    }
    return {
      name,
      email: `${local}${rng.int(1, 999)}@example.${japanese ? 'jp' : 'com'}`,
      phone: `0${rng.int(70, 90)}${String(rng.int(0, 99999999)).padStart(8, '0')}`,
      brand: rng.chance(0.6) ? 'visa' : 'master',
      lastFour: String(rng.int(0, 9999)).padStart(4, '0'),
      expMonth: rng.int(1, 12),
      expYear: rng.int(2026, 2031),
    }
  }

  /** A charge created at `createdUs`; refunds (if any) are created between then and `refundBeforeUs`. */
  charge(createdUs: number, refundBeforeUs: number, storeId?: string): SandboxCharge {
    const rng = this.rng
    const store = storeId ?? rng.pick(this.stores).id
    const mode = rng.chance(0.1) ? 'test' : 'live'
    const currency = rng.weighted<string>([
      ['JPY', 80],
      ['USD', 15],
      ['EUR', 5],
    ])
    const chargedAmount =
      currency === 'JPY' ? rng.int(1, 400) * 50 + (rng.chance(0.3) ? rng.int(1, 49) : 0) : rng.int(100, 50000)
    // A few JPY charges were requested in USD (the requested vs charged currency filter needs them).
    const dcc = currency === 'JPY' && rng.chance(0.03)
    const status = rng.weighted(CHARGE_STATUS_WEIGHTS)
    const hasFee = status === 'successful' || status === 'authorized'
    this.orderSeq++
    const orderNumber = `ORD-${String(this.orderSeq).padStart(7, '0')}`
    const metadata: Record<string, string> = {}
    const withOrder = rng.chance(0.9)
    if (withOrder) metadata['order_number'] = orderNumber
    if (rng.chance(0.2)) metadata['customer_id'] = `C${rng.int(10000, 99999)}`
    if (rng.chance(0.004)) metadata['note'] = rng.pick(HOSTILE_NOTES)
    const charge: SandboxCharge = {
      id: rng.uuid(),
      storeId: store,
      transactionTokenId: rng.uuid(),
      subscriptionId: rng.chance(0.05) ? rng.uuid() : null,
      merchantTransactionId: withOrder && rng.chance(0.85) ? orderNumber : null,
      requestedAmount: dcc ? Math.max(1, Math.round(chargedAmount / 1.5)) : chargedAmount,
      requestedCurrency: dcc ? 'USD' : currency,
      chargedAmount,
      chargedCurrency: currency,
      feeAmount: hasFee ? Math.round(chargedAmount * 0.0324) : null,
      feeCurrency: hasFee ? currency : null,
      status,
      error:
        status === 'failed' || status === 'error'
          ? {
              code: status === 'failed' ? 'CARD_DECLINED' : 'PROCESSING_ERROR',
              message: 'The card was declined',
              detail: null,
            }
          : null,
      metadata,
      mode,
      createdUs,
      captureAtUs: status === 'authorized' ? createdUs + 7 * DAY_US : null,
      descriptor: rng.chance(0.3) ? 'SAKURA GOODS' : null,
      card: this.card(),
      refunds: [],
    }
    if (status === 'successful' && rng.chance(0.08)) {
      const full = rng.chance(0.6)
      const parts = full ? 1 : rng.int(1, 2)
      let left = chargedAmount
      let at = createdUs
      for (let i = 0; i < parts && left > 0; i++) {
        const amount = full ? chargedAmount : Math.max(1, Math.floor(left * (0.2 + rng.next() * 0.3)))
        at = at + rng.int(1, 20 * 24) * HOUR_US + rng.int(0, 999_999)
        if (at >= refundBeforeUs) break // not refunded yet within the generated range
        charge.refunds.push(this.refund(charge, amount, at))
        left -= amount
      }
    }
    return charge
  }

  refund(charge: SandboxCharge, amount: number, createdUs: number, status?: RefundStatus): SandboxRefund {
    const rng = this.rng
    return {
      id: rng.uuid(),
      chargeId: charge.id,
      storeId: charge.storeId,
      amount,
      currency: charge.chargedCurrency,
      status: status ?? rng.weighted(REFUND_STATUS_WEIGHTS),
      reason: rng.weighted<SandboxRefund['reason']>([
        ['customer_request', 85],
        ['duplicate', 10],
        ['fraud', 5],
      ]),
      createdUs,
      metadata: charge.metadata['order_number'] ? { order_number: charge.metadata['order_number'] } : {},
    }
  }
}

/** `records` charges spread over [fromUs, toUs), 6 % of them within two hours of a month boundary. */
export function generateCharges(
  options: GenerateOptions,
  stores: SandboxStore[],
): { charges: SandboxCharge[]; factory: ChargeFactory } {
  const rng = new Prng(`charges:${options.seed}`)
  const factory = new ChargeFactory(rng, stores)
  const boundaries = monthBoundaries(options.fromUs, options.toUs)
  const span = options.toUs - options.fromUs
  const times: number[] = []
  for (let i = 0; i < options.records; i++) {
    let t: number
    if (boundaries.length > 0 && rng.chance(0.06)) {
      const b = rng.pick(boundaries)
      t = b + Math.floor((rng.next() * 2 - 1) * 2 * HOUR_US)
    } else {
      t = options.fromUs + Math.floor(rng.next() * span)
    }
    times.push(Math.min(options.toUs - 1, Math.max(options.fromUs, t)))
  }
  times.sort((a, b) => a - b)
  const charges = times.map((t) => factory.charge(t, options.toUs))
  return { charges, factory }
}
