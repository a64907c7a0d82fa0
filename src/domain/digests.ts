/**
 * What the day rows keep of each record and charge (its digest): the fields Month-end's figures and the
 * month workbook's plan read, so that neither needs the whole record. One definition for the cache that
 * stores them and the workbook that makes them from records in memory.
 */
import { fingerprintOf } from './fingerprint'
import type { ChargeDigest, ChargeRecord, HistoryRecord, RecordDigest } from './records'

/** A record's digest, with its amount. */
export function recordDigestOf(r: HistoryRecord): RecordDigest & { amount: number } {
  return {
    key: r.key,
    createdAt: r.createdAt,
    storeId: r.storeId,
    type: r.type,
    status: r.status,
    currency: r.currency,
    mode: r.mode,
    brand: r.brand,
    fingerprint: fingerprintOf(r),
    amount: r.amount,
  }
}

/** What Month-end reads of a charge, from a whole one. */
export function chargeDigestOf(c: ChargeRecord): ChargeDigest {
  return {
    id: c.id,
    createdAt: c.createdAt,
    storeId: c.storeId,
    status: c.status,
    chargedAmount: c.chargedAmount,
    chargedCurrency: c.chargedCurrency,
    feeAmount: c.feeAmount,
    feeCurrency: c.feeCurrency,
    mode: c.mode,
    syncedAt: c.syncedAt,
  }
}
