/** What the ledger tells the accountant after an action: one line, or an error. */
import type { AppError } from '../../platform/app-error'
import type { MarkAction } from '../../reconcile/marking'

export type LedgerNotice =
  | { kind: 'marked'; action: MarkAction; changed: number; refused: number }
  | { kind: 'undone'; changed: number; refused: number }
  | { kind: 'locked'; period: string }
  | { kind: 'closed'; period: string }
  | { kind: 'reopened'; period: string }
  | { kind: 'sortTooLarge'; limit: number }
  | { kind: 'cancelled' }
  | { kind: 'error'; error: AppError }
