/**
 * Maker–checker close on the team workspace, for the Month-end view: which team merchant this connection
 * is (a setting of this desktop, picked from the login's grants, the one matching the connection's merchant
 * id and mode suggested), the month's
 * state on the server (preparer, reviewer, times), the actions the server allows, the writes it refused,
 * and how far the audit chain pulled into this cache verifies. Inert when no workspace is configured.
 */
import { defineStore } from 'pinia'
import { ref } from 'vue'
import { z } from 'zod'
import type { TeamGrant, TeamMerchant, TeamMonthState, TeamSummary } from '../../electron/shared/contract'
import { appCache } from '../db/cache'
import { connectionIdentity } from '../db/team-identity'
import { TeamRepository, teamMerchantSetting } from '../db/team-repository'
import { grantFor, rankGrants, type GrantFit } from '../domain/team-grants'
import type { TeamRefusedRow, TeamStateRow } from '../db/team-rows'
import type { PayoutCloseRecord } from '../domain/records'
import { desktopApi } from '../platform'
import { toAppError, type AppError } from '../platform/app-error'
import type { WorkbookTeamClose } from '../export/team-close-rows'
import { localTargetOf } from '../sync/team-loop'
import { joinOnce } from '../sync/team-join'
import { merchantKeyOf, TeamSync } from '../sync/team-sync'

const merchantSchema = z.object({ merchantId: z.string().min(1), mode: z.enum(['live', 'test']) })

export type TeamMonthAction = 'submit' | 'sign_off' | 'send_back' | 'reopen'

export const useTeamCloseStore = defineStore('team-close', () => {
  const summary = ref<TeamSummary | null>(null)
  const merchant = ref<TeamMerchant | null>(null)
  const month = ref<TeamMonthState | null>(null)
  const chain = ref<Pick<TeamStateRow, 'verifiedThrough' | 'broken'> | null>(null)
  const refused = ref<TeamRefusedRow[]>([])
  const error = ref<AppError | null>(null)
  const busy = ref(false)
  /** Writes still in the outbox, and why the last send stopped (null: all sent). */
  const pending = ref(0)
  const outboxNote = ref<string | null>(null)
  /** Blocking checklist items that held back the last submit (0: none). */
  const checklistOpen = ref(0)
  /** The login's granted merchants, best fit for this connection first (null: not read yet). */
  const grants = ref<{ grant: TeamGrant; fit: GrantFit }[] | null>(null)
  /** The grant that is this connection's merchant by id and mode, when exactly one is. */
  const suggested = ref<TeamGrant | null>(null)

  const repo = (): TeamRepository => new TeamRepository(appCache().db)
  /** The connection whose marks the server's decisions reach. */
  let connection: string | null = null

  async function load(connectionId: string, period: string): Promise<void> {
    error.value = null
    connection = connectionId
    try {
      summary.value = await desktopApi().team.get({})
      if (!summary.value.configured) return
      merchant.value = await appCache().settings.get(
        teamMerchantSetting(connectionId),
        merchantSchema.nullable(),
        null,
      )
      // The grants only offer the choice: when they cannot be read, the chosen merchant still refreshes.
      await loadGrants(connectionId).catch((e: unknown) => {
        error.value = toAppError(e)
      })
      await refresh(period)
    } catch (e) {
      error.value = toAppError(e)
    }
  }

  /** Reads the login's grants and ranks them by how well they fit this connection's merchant id and mode. */
  async function loadGrants(connectionId: string): Promise<void> {
    const listed = await desktopApi().team.grants({})
    const identity = await connectionIdentity(appCache().db, connectionId)
    grants.value = rankGrants(listed, identity)
    suggested.value = grantFor(listed, identity)
  }

  async function chooseMerchant(connectionId: string, period: string, choice: TeamMerchant): Promise<void> {
    await appCache().settings.set(teamMerchantSetting(connectionId), choice)
    merchant.value = choice
    await refresh(period)
  }

  /** Pulls the audit after the last verified row, then reads the month's state and the refused writes. */
  async function refresh(period: string): Promise<void> {
    const m = merchant.value
    const user = summary.value?.config?.user
    if (!m || !user) return
    busy.value = true
    try {
      const target = connection
      const local = target ? localTargetOf(appCache(), target) : null
      const sync = new TeamSync(repo(), desktopApi().team, user, Date.now, local)
      // Marks held from before the connection was shared go up once, before anything queued since.
      if (target) await joinOnce(appCache(), target, m, desktopApi().team, user, local)
      // The outbox first (in order, each with its key), then everything after the last verified row.
      const flushed = await sync.flush(m)
      outboxNote.value = flushed.stoppedBy
      pending.value = (await repo().pending(merchantKeyOf(m))).length
      const state = await sync.pull(m)
      chain.value = { verifiedThrough: state.verifiedThrough, broken: state.broken }
      const months = await desktopApi().team.months({ merchant: m })
      month.value = months.find((x) => x.month === period) ?? null
      refused.value = (await repo().refused(merchantKeyOf(m))).filter((r) => r.mark.month === period)
    } catch (e) {
      error.value = toAppError(e)
    } finally {
      busy.value = false
    }
  }

  /**
   * Sends a month action. A submit is sent only when the month's close checklist has no blocking item
   * (`blocking`, from the Month-end checklist): otherwise nothing is sent and `checklistOpen` says so. A
   * sign-off carries `payoutClose`, the month's payout closing, into its audit row.
   */
  async function act(
    period: string,
    action: TeamMonthAction,
    note: string,
    blocking = 0,
    payoutClose: PayoutCloseRecord | null = null,
  ): Promise<void> {
    const m = merchant.value
    if (!m) return
    checklistOpen.value = action === 'submit' && blocking > 0 ? blocking : 0
    if (checklistOpen.value > 0) return
    busy.value = true
    error.value = null
    try {
      const result = await desktopApi().team.changeMonth({
        merchant: m,
        key: globalThis.crypto.randomUUID(),
        month: period,
        action,
        baseVersion: action === 'submit' || action === 'sign_off' ? (month.value?.version ?? null) : null,
        note,
        ...(action === 'sign_off' && payoutClose ? { payoutClose } : {}),
      })
      month.value = result.month
      if (result.status === 'refused') error.value = { code: 'conflict', detail: result.reason, fields: [] }
    } catch (e) {
      error.value = toAppError(e)
    } finally {
      busy.value = false
    }
    await refresh(period)
  }

  /**
   * What the month workbook states of the team close: the server's month as last read and the verified
   * chain head in this cache. Null when `connectionId` is not the shared connection loaded here.
   */
  async function workbookTeam(connectionId: string): Promise<WorkbookTeamClose | null> {
    const m = merchant.value
    if (!m || connection !== connectionId || !summary.value?.configured) return null
    const state = await repo().state(merchantKeyOf(m))
    const mo = month.value
    return {
      state: mo?.state ?? 'open',
      preparedBy: mo?.submittedBy ?? null,
      submittedAt: mo?.submittedAt ?? null,
      signedOffBy: mo?.signedOffBy ?? null,
      signedOffAt: mo?.signedOffAt ?? null,
      chainThrough: state.verifiedThrough,
      chainHead: state.headHash,
      brokenAt: state.broken?.at ?? null,
    }
  }

  async function dismiss(id: number, period: string): Promise<void> {
    await repo().dismissRefused(id)
    await refresh(period)
  }

  return {
    summary,
    merchant,
    month,
    chain,
    refused,
    error,
    busy,
    pending,
    outboxNote,
    checklistOpen,
    grants,
    suggested,
    load,
    chooseMerchant,
    refresh,
    act,
    dismiss,
    workbookTeam,
  }
})
