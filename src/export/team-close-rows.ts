/**
 * The team workspace in the month workbook: who prepared and who signed off the month on the server, and
 * when (in the connection's time zone), and how far the audit chain this desktop pulled verifies, with its
 * head hash, so a reader can check the workbook against the server's trail.
 */
import type { ExportRow } from '../../electron/shared/contract'
import { clipText, dateCell } from './sheet-values'

export interface WorkbookTeamClose {
  /** The month on the server: open, submitted for review, signed off. */
  state: 'open' | 'submitted' | 'signed_off'
  preparedBy: string | null
  /** ISO times of the server's clock. */
  submittedAt: string | null
  signedOffBy: string | null
  signedOffAt: string | null
  /** The last audit number held and verified here, and its hash; where the chain broke, if it did. */
  chainThrough: number
  chainHead: string
  brokenAt: number | null
}

const STATES: Record<WorkbookTeamClose['state'], string> = {
  open: 'Open on the team server',
  submitted: 'Submitted for review on the team server',
  signed_off: 'Signed off on the team server',
}

const when = (iso: string | null, tz: string): ExportRow[number] => {
  const ms = iso === null ? NaN : Date.parse(iso)
  return Number.isFinite(ms) ? dateCell(ms, tz) : null
}

/** The chain head as one sentence: "audit verified through #N, hash …", or where it breaks. */
export function chainHeadText(team: WorkbookTeamClose): string {
  const head = `audit verified through #${team.chainThrough}, hash ${team.chainHead}`
  return team.brokenAt === null ? head : `${head}; the chain breaks at #${team.brokenAt}`
}

/** Rows for the Summary's header block: preparer, reviewer and their times, and the chain head. */
export function teamCloseRows(team: WorkbookTeamClose | null | undefined, tz: string): ExportRow[] {
  if (!team) return []
  return [
    ['Team close', STATES[team.state]],
    ['Prepared by', team.preparedBy ? clipText(team.preparedBy) : null],
    ['Submitted at', when(team.submittedAt, tz)],
    ['Signed off by', team.signedOffBy ? clipText(team.signedOffBy) : null],
    ['Signed off at', when(team.signedOffAt, tz)],
    ['Team audit', chainHeadText(team)],
  ]
}

/** The Audit sheet's header block when the connection is shared with a team: the chain head. */
export function auditPreamble(team: WorkbookTeamClose | null | undefined): ExportRow[] | null {
  if (!team) return null
  return [
    [`Team audit trail on the server: ${chainHeadText(team)}.`],
    ['The rows below are this desktop’s own audit of the period.'],
  ]
}
