/** What the month-end workbook is built from, and the plan it is built into (sheets with lazily built rows). */
import type { ExportRow, ExportSheet } from '../../electron/shared/contract/export'
import type { AuditEntry, ChargeRecord, HistoryRecord, MarkRecord, RecordKey } from '../domain/records'
import type { QuarantinedItem } from '../reconcile/close-checklist'
import type { LinkedRow } from '../reconcile/match-links'
import type { MonthSummary } from '../reconcile/month-summary'
import type { PayoutWorkbookInput } from './payout-sheets'
import type { WorkbookTeamClose } from './team-close-rows'

export interface MonthWorkbookInput {
  merchantName: string
  connection: { id: string; label: string; timeZone: string }
  /** `YYYY-MM` in the accounting time zone. */
  period: string
  /** One store's workbook, or null for every store of the connection. */
  storeId: string | null
  /** Store names by id; records' own `store_name` fills any gap. */
  storeNames?: ReadonlyMap<string, string>
  /** The connection's cached records (any period: the builder picks the period's). */
  history: readonly HistoryRecord[]
  charges: readonly ChargeRecord[]
  marks: ReadonlyMap<RecordKey, MarkRecord>
  audit: readonly AuditEntry[]
  generatedAt: number
  appVersion: string
  /** Further filters to state in the header block (the store filter is stated already). */
  filters?: readonly string[]
  /** Imported order or bank lines of the period that no accepted match links to. */
  unmatchedImports?: readonly UnmatchedImport[]
  /** The month's close when the workbook was made; null or absent: the month is open. */
  close?: MonthClose | null
  /** Items held in quarantine for the month (real exceptions); absent: none known. */
  quarantined?: readonly QuarantinedItem[]
  /**
   * The imported rows the marks link to (for "Matched to") and every bank line (for the
   * Deposits sheet; those of the period are listed). Absent: no imports.
   */
  importedRows?: readonly LinkedRow[]
  /** Records a deposit pays that lie outside the period (a payout spans a month end), and their charges. */
  linkedHistory?: readonly HistoryRecord[]
  linkedCharges?: readonly ChargeRecord[]
  /** The payout model's transfer fee with tax (minor units): the difference a deposit usually shows. */
  transferFee?: number
  /** The month's payout roll-forward: adds the payout sheets (payout-sheets.ts). */
  payouts?: PayoutWorkbookInput
  /** The month on the team server and the verified audit chain head; absent: not shared with a team. */
  team?: WorkbookTeamClose | null
}

/** What a workbook is planned from besides its records, which a MonthSource gives. */
export type MonthWorkbookMeta = Omit<MonthWorkbookInput, 'history' | 'charges' | 'storeNames'>

export interface MonthClose {
  closedAt: number
  closedBy: string
  note: string | null
}

export interface UnmatchedImport {
  source: 'orders' | 'bank'
  fileName: string
  line: number
  orderNumber: string | null
  at: number
  amount: number
  currency: string
}

/** A sheet's rows: built in memory, or as its records are read (a bounded batch at a time). */
export type SheetRows = Iterable<ExportRow> | AsyncIterable<ExportRow>

export interface WorkbookPlanSheet<R extends SheetRows = SheetRows> {
  spec: ExportSheet
  rowCount: number
  rows: () => R
}

export interface WorkbookPlan {
  suggestedName: string
  title: string
  sheets: WorkbookPlanSheet[]
  /** What the Summary's formulas must add up to. */
  summary: MonthSummary
}
