import type { ChargeItem, HistoryItem } from '../../../../../electron/shared/payment-api'
import {
  chargeItem as numberedChargeItem,
  historyItem as numberedHistoryItem,
} from '../../../../support/api-items'

export {
  CANARY_CREDENTIALS,
  CANARY_SECRET,
  CANARY_TOKEN,
  canaryLeaks,
  makeJwt,
} from '../../../../support/canary'

export const STORE_A = '11111111-1111-4111-8111-111111111111'
export const STORE_B = '22222222-2222-4222-8222-222222222222'

const SHOP = { merchant_name: 'Yamada Shoten', store_name: 'Shibuya' }

let n = 0
const uuid = (): string => {
  n++
  return `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`
}

/** A test-mode card payment of 1,200 JPY in Shibuya (`historyItem` of tests/support, a fresh id each). */
export function historyItem(overrides: Partial<HistoryItem> = {}): HistoryItem {
  return numberedHistoryItem(0, {
    store_id: STORE_A,
    resource_id: uuid(),
    amount: 1200,
    amount_formatted: 1200,
    metadata: { order_no: 'A-1' },
    created_on: '2026-10-31T16:30:00.123456Z',
    mode: 'test',
    ...SHOP,
    user_data: {
      type: 'charge',
      cardholder_name: 'TARO YAMADA',
      cardholder_email_address: 'taro@example.com',
      brand: 'visa',
      gateway: 'test',
      service_provider: 'test',
      refunds: [],
    },
    ...overrides,
  })
}

/** A live 10.00 USD charge without a fee (`chargeItem` of tests/support, fresh ids each). */
export function chargeItem(overrides: Partial<ChargeItem> = {}): ChargeItem {
  return numberedChargeItem(0, {
    id: uuid(),
    store_id: STORE_A,
    transaction_token_id: uuid(),
    merchant_transaction_id: null,
    requested_currency: 'USD',
    requested_amount_formatted: 10,
    charged_currency: 'USD',
    charged_amount_formatted: 10,
    fee_amount: null,
    fee_currency: null,
    fee_amount_formatted: null,
    created_on: '2026-10-01T00:00:00.000Z',
    ...SHOP,
    ...overrides,
  })
}

export interface SeenRequest {
  url: string
  method: string
  headers: Record<string, string>
  redirect: string | undefined
  signal: AbortSignal | undefined
}

/** A fetch that records what it was asked and answers with `respond`. */
export function fakeFetch(respond: (req: SeenRequest) => Response | Promise<Response>) {
  const seen: SeenRequest[] = []
  const fetch = async (input: string, init: RequestInit): Promise<Response> => {
    const headers: Record<string, string> = {}
    new Headers(init.headers).forEach((value, key) => (headers[key] = value))
    const req = {
      url: input,
      method: init.method ?? 'GET',
      headers,
      redirect: init.redirect,
      signal: init.signal ?? undefined,
    }
    seen.push(req)
    return respond(req)
  }
  return { fetch, seen }
}

export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'Content-Type': 'application/json', ...headers },
  })
}
