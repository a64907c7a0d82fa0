/** The Audit sheet: the audit entries about the period, in order, with the team chain head when shared. */
import type { ExportRow } from '../../electron/shared/contract/export'
import type { AuditEntry, HistoryRecord, RecordKey } from '../domain/records'
import { describeMatchRef } from '../reconcile/match-links'
import { auditRecordText, auditValueText } from './audit-text'
import type { MonthWorkbookMeta, WorkbookPlanSheet } from './month-workbook-input'
import { linkText, SHEETS } from './month-record-sheets'
import type { MonthScope } from './month-scope'
import { col, Columns } from './sheet-columns'
import { clipText, dateCell } from './sheet-values'
import { auditPreamble } from './team-close-rows'

const AU = new Columns([
  col('at', 'At', 'datetime', 20),
  col('actor', 'By', 'text', 18),
  col('action', 'Action', 'text', 14),
  col('record', 'Record', 'text', 46),
  col('period', 'Period', 'text', 9),
  col('before', 'Before', 'text', 40),
  col('after', 'After', 'text', 40),
  col('reason', 'Reason', 'text', 30),
])

/**
 * Audit entries about the period: marks, notes and reconfirmations of its records, its close and reopen
 * (all carry the period), plus entries without a period (restore) made during it. For one store, record
 * entries of other stores are left out.
 */
function auditOfPeriod(input: MonthWorkbookMeta, scope: MonthScope): AuditEntry[] {
  const { range } = scope
  const ofPeriod = input.audit.filter((e) =>
    e.period === null ? e.at >= range.from && e.at < range.to : e.period === input.period,
  )
  const storeKeys = input.storeId === null ? null : scope.source.storeKeys(input.storeId)
  return ofPeriod
    .filter((e) => storeKeys === null || e.key === null || storeKeys.has(e.key))
    .sort((a, b) => a.at - b.at || (a.seq ?? 0) - (b.seq ?? 0) || (a.part ?? 0) - (b.part ?? 0))
}

export function auditSheet(input: MonthWorkbookMeta, scope: MonthScope): WorkbookPlanSheet {
  const { tz, linkedRows } = scope
  const audit = auditOfPeriod(input, scope)
  const linkOf = (matchRef: string): string =>
    describeMatchRef(matchRef, linkedRows)
      .map((d) => linkText(d, tz))
      .join('; ')
  const auditRows = async function* (): AsyncGenerator<ExportRow> {
    // Only the records the entries name are read: most of a month's records have no entry.
    const named = [...new Set(audit.flatMap((e) => (e.key === null ? [] : [e.key])))]
    const recordsByKey = new Map<RecordKey, HistoryRecord>()
    for (const r of await scope.source.historyByKeys(named)) recordsByKey.set(r.key, r)
    for (const e of audit) {
      yield AU.row({
        at: dateCell(e.at, tz),
        actor: e.actor,
        action: e.action,
        record: auditRecordText(e.key, recordsByKey, tz),
        period: e.period,
        before: auditValueText(e.before, tz, linkOf),
        after: auditValueText(e.after, tz, linkOf),
        reason: e.reason ? clipText(e.reason) : null,
      })
    }
  }
  const preamble = auditPreamble(input.team)
  return {
    spec: { name: SHEETS.audit, columns: AU.columns, ...(preamble ? { preamble } : {}) },
    rowCount: audit.length,
    rows: auditRows,
  }
}
