/**
 * How payouts are stored (schema v11). Transfers, status changes and bank accounts are the domain's
 * shapes as they are; a ledger adds `transferKey` (its transfer id, or '' while it waits for one) so the
 * open ones can be found by index. The sync's own state says whether payouts could be read at all and
 * where an interrupted read resumes.
 */
import type { LedgerItem, MerchantPayoutConfig, PayoutAccess, Transfer } from '../domain/payouts'

export interface TransferRow extends Transfer {
  /**
   * The status its ledgers and status changes were last read completely at; null: not yet (or a read
   * was interrupted). A transfer whose status is final and equals this is never read again, but by
   * "Verify month".
   */
  detailsReadAt: string | null
  /** Ledgers read for it in that complete read. */
  ledgerCount: number
}

export interface LedgerRow extends LedgerItem {
  transferKey: string
}

export const OPEN_TRANSFER_KEY = ''

export interface PayoutConfigRow extends MerchantPayoutConfig {
  syncedAt: number
}

/** Where a transfer's details read stands: resumes after `cursor` (none: from the start). */
export interface DetailsCursor {
  transferId: string
  part: 'ledgers' | 'status_changes'
  cursor: string | null
}

export interface PayoutSyncState {
  connectionId: string
  access: PayoutAccess
  /** When the last payout sync finished, and whether it read everything it meant to. */
  lastRunAt: number | null
  complete: boolean
  /** The transfer details read in progress, if a run stopped in the middle of one. */
  details: DetailsCursor | null
}

export interface PayoutQuarantineRow {
  connectionId: string
  /** `<kind>:<item id or request>`: one row per bad item, replaced when it is seen again. */
  id: string
  kind: string
  itemId: string | null
  /** The transfer whose ledgers or status changes held it, when known. */
  transferId: string | null
  reason: string
  issues: { path: string; message: string }[]
  request: string
  raw: unknown
  seenAt: number
}

/** A ledger id and the record that carries it (a charge list item's, or a history row's `ledger_id`). */
export interface LedgerLink {
  connectionId: string
  ledgerId: string
  kind: 'charge' | 'refund'
  recordId: string
  /** The record's creation time (epoch ms), to find its day rows. */
  createdAt: number
}
