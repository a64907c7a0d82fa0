/**
 * The order-file corpus (tests/fixtures/order-files): exports written from the public descriptions of
 * Shopify's orders export, BASE 注文CSV, EC-CUBE 4 受注CSV and a Mizuho statement, one file per variant
 * of the way shops really write them, each tagged with the kind of miss it holds. `manifest.json` lists
 * the payment-service records the files are about and each file's truth by first file line.
 * Files are kept as UTF-8 text and encoded as the shop system writes them (Shift_JIS) when loaded.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import Encoding from 'encoding-japanese'
import { chargeRecordOf } from '../../../src/db/charge-record'
import { historyRecordOf } from '../../../src/db/history-record'
import type { RecordKey } from '../../../src/domain/records'
import { cardUserData, chargeItem, historyItem, uuid } from '../../support/api-items'
import type { Corpus, CorpusFile } from './match-corpus'

export const ORDER_FILES_DIR = join(__dirname, '..', '..', 'fixtures', 'order-files')
export const ORDER_FILES_CONNECTION = 'order-files'
const STORE = '77777777-7777-4777-8777-777777777777'

/** The kinds of miss the corpus holds (a file's `kind`). */
export type MissKind =
  | 'order_number'
  | 'multi_line'
  | 'shipping_fee'
  | 'yearless_date'
  | 'payment_method'
  | 'late_refund'
  | 'bank_preamble'

interface ManifestRecord {
  n: number
  at: string
  amount: number
  ref?: string
  refIn?: 'charge' | 'metadata'
  paymentType?: string | null
  refundOf?: number
}

interface ManifestFile {
  name: string
  source: 'orders' | 'bank'
  kind: MissKind
  encoding: 'utf-8' | 'shift_jis'
  truth: Record<string, number[]>
  exact: number[]
}

interface Manifest {
  zone: string
  records: ManifestRecord[]
  files: ManifestFile[]
}

function encode(text: string, encoding: ManifestFile['encoding']): Uint8Array {
  if (encoding === 'utf-8') return new TextEncoder().encode(text)
  return Uint8Array.from(
    Encoding.convert(Encoding.stringToCode(text), { to: 'SJIS', from: 'UNICODE', type: 'array' }),
  )
}

export function loadOrderFiles(
  dir = ORDER_FILES_DIR,
): Corpus & { files: (CorpusFile & { kind: MissKind })[] } {
  const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as Manifest
  const corpus: Corpus & { files: (CorpusFile & { kind: MissKind })[] } = {
    history: [],
    charges: [],
    files: [],
  }
  const keys = new Map<number, RecordKey>()
  for (const r of manifest.records) {
    const created = new Date(r.at).toISOString()
    const common = { store_id: STORE, amount: r.amount, amount_formatted: r.amount, created_on: created }
    if (r.refundOf !== undefined) {
      const item = historyItem(r.n, {
        ...common,
        type: 'refund',
        charge_id: uuid(r.refundOf),
        metadata: {},
        user_data: cardUserData(r.refundOf),
      })
      const record = historyRecordOf(ORDER_FILES_CONNECTION, item, 0)
      corpus.history.push(record)
      keys.set(r.n, record.key)
      continue
    }
    const ref = r.ref ?? null
    const item = historyItem(r.n, {
      ...common,
      metadata: ref !== null && r.refIn === 'metadata' ? { order_id: ref } : {},
      payment_type: r.paymentType ?? 'card',
    })
    // A record without a payment_type (some real rows have none): the method rule cannot rule it out.
    if (r.paymentType === null) delete (item as { payment_type?: string }).payment_type
    const record = historyRecordOf(ORDER_FILES_CONNECTION, item, 0)
    corpus.history.push(record)
    corpus.charges.push(
      chargeRecordOf(
        ORDER_FILES_CONNECTION,
        chargeItem(r.n, {
          store_id: STORE,
          merchant_transaction_id: ref !== null && r.refIn !== 'metadata' ? ref : null,
          requested_amount: r.amount,
          requested_amount_formatted: r.amount,
          charged_amount: r.amount,
          charged_amount_formatted: r.amount,
          created_on: created,
        }),
        0,
      ),
    )
    keys.set(r.n, record.key)
  }
  for (const f of manifest.files) {
    const text = readFileSync(join(dir, f.name), 'utf8')
    const truth = new Map<number, RecordKey[]>()
    for (const [line, ns] of Object.entries(f.truth)) {
      truth.set(
        Number(line),
        ns.map((n): RecordKey => keys.get(n) ?? `charge:${uuid(n)}`),
      )
    }
    corpus.files.push({
      name: f.name,
      source: f.source,
      kind: f.kind,
      bytes: encode(text, f.encoding),
      truth,
      exact: new Set(f.exact),
    })
  }
  return corpus
}
