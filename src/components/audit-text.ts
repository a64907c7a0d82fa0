/**
 * Audit before/after in words: "Reconciled (note: “…”)" → "Not reconciled", never the stored JSON. An
 * absent mark is "Not reconciled" (a record without a mark row is unreconciled with no note).
 */
import type { Translator } from '../i18n/labels'

interface MarkLike {
  state?: unknown
  note?: unknown
}

export function describeMarkState(tr: Translator, value: unknown): string {
  if (value === null || value === undefined || typeof value !== 'object')
    return tr.t('ledger.reconciledStates.unreconciled')
  const mark = value as MarkLike
  const state =
    mark.state === 'reconciled'
      ? tr.t('ledger.stateReconciled')
      : tr.t('ledger.reconciledStates.unreconciled')
  return typeof mark.note === 'string' && mark.note.trim() !== ''
    ? tr.t('ledger.auditView.withNote', { state, note: mark.note })
    : state
}

/** "Reconciled → Not reconciled" for a record's change; '' for month and restore entries. */
export function describeChange(
  tr: Translator,
  entry: { key: unknown; before: unknown; after: unknown },
): string {
  if (entry.key === null || entry.key === undefined) return ''
  return `${describeMarkState(tr, entry.before)} → ${describeMarkState(tr, entry.after)}`
}
