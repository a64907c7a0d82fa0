/**
 * The close checklist's facts that other parts of the app own, read from the cache: when "Verify month"
 * last ran for the month (settings, written by VerifyMonth) and which quarantined items may belong to it
 * (the quarantine table, written by sync). Registered once at start-up (main.ts).
 */
import { z } from 'zod'
import { appCache } from '../db/cache'
import { QuarantineRepository } from '../db/quarantine-repository'
import { monthVerificationKey } from '../db/recency'
import { setCloseFactsProvider, type CloseFactsProvider } from '../reconcile/close-checklist'

const verificationAt = z.object({ at: z.number() }).nullable()

export const cacheCloseFacts: CloseFactsProvider = {
  async lastVerified(connectionId, period) {
    const stored = await appCache().settings.get(
      monthVerificationKey(connectionId, period),
      verificationAt,
      null,
    )
    return { available: true, value: stored?.at ?? null }
  },
  async quarantined(connectionId, period) {
    const rows = await new QuarantineRepository(appCache().db).inMonth(connectionId, period)
    return {
      available: true,
      value: rows.map((r) => ({
        resource: r.resource,
        itemId: r.itemId,
        reason: r.reason,
        seenAt: r.lastSeenAt,
      })),
    }
  },
}

export function registerCloseFacts(): void {
  setCloseFactsProvider(cacheCloseFacts)
}
