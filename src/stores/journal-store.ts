/**
 * Journal entries (仕訳) of a month: the per-connection posting settings and the export of one format.
 * The vouchers come from the same month data as the summary and the workbook (`loadMonth`'s digests of the
 * month's records and charges: no record is read for them), so their totals tie to the summary, and the
 * month's deposit entries from its payout roll-forward; files are written one after another through the
 * host, a trace file last.
 */
import { defineStore } from 'pinia'
import { ref } from 'vue'
import { appCache } from '../db/cache'
import { journalFiles, traceFile, type JournalLabels } from '../export/journal/formats'
import {
  defaultJournalSettings,
  journalSettingsKey,
  journalSettingsSchema,
  type JournalFormat,
  type JournalSettings,
} from '../export/journal/settings'
import { assertBalanced, buildJournal, JournalError, type JournalBuild } from '../export/journal/vouchers'
import { buildDepositJournal, withDeposits } from '../export/journal/deposits'
import { byTimeThenId, byTimeThenKey, sortedBy } from '../export/month-source'
import { writeFileThroughHost } from '../platform/files'
import type { MonthData } from './month-end-store'

/** An error the view renders from `journal.errors.<code>` with its params. */
export interface JournalProblem {
  code: string
  params: Record<string, string | number>
}

function problemOf(e: unknown): JournalProblem {
  if (e instanceof JournalError) return { code: e.code, params: e.params }
  return { code: 'journal_failed', params: { message: e instanceof Error ? e.message : String(e) } }
}

export const useJournalStore = defineStore('journal', () => {
  const settings = ref<JournalSettings>(defaultJournalSettings())
  const settingsFor = ref<string | null>(null)
  const problem = ref<JournalProblem | null>(null)
  const saved = ref(false)
  const preview = ref<JournalBuild | null>(null)
  const progress = ref<{ file: number; files: number } | null>(null)
  const written = ref<string[]>([])
  let abort: AbortController | undefined

  async function loadSettings(connectionId: string): Promise<void> {
    settings.value = await appCache().settings.get(
      journalSettingsKey(connectionId),
      journalSettingsSchema,
      defaultJournalSettings(),
    )
    settingsFor.value = connectionId
  }

  /** Validates, then stores; a refused value is reported by field and code, nothing is stored. */
  async function saveSettings(connectionId: string, value: JournalSettings): Promise<boolean> {
    saved.value = false
    const parsed = journalSettingsSchema.safeParse(value)
    if (!parsed.success) {
      const issue = parsed.error.issues[0]
      problem.value = {
        code: issue?.message.startsWith('journal_') ? issue.message : 'journal_settings_invalid',
        params: { field: issue?.path.join('.') ?? '' },
      }
      return false
    }
    await appCache().settings.set(journalSettingsKey(connectionId), parsed.data)
    settings.value = parsed.data
    problem.value = null
    saved.value = true
    return true
  }

  /** The vouchers and exceptions the export would write, shown before anything is written. */
  async function prepare(month: MonthData): Promise<void> {
    problem.value = null
    written.value = []
    try {
      if (settingsFor.value !== month.connection.id) await loadSettings(month.connection.id)
      // Month-end's digests hold every field the entries read: no record of the month is read for them.
      const entries = buildJournal({
        period: month.period,
        timeZone: month.connection.timeZone,
        history: sortedBy(month.digests, byTimeThenKey),
        charges: sortedBy(month.chargeDigests, byTimeThenId),
        storeNames: month.storeNames,
        settings: settings.value,
      })
      // The deposits paid in the month follow its entries, from the same roll-forward Month-end shows.
      const payouts = month.payouts?.available ? month.payouts.value : null
      const built = payouts
        ? withDeposits(
            entries,
            buildDepositJournal({ rollForward: payouts.rollForward, settings: settings.value }),
          )
        : entries
      assertBalanced(built.vouchers)
      preview.value = built
    } catch (e) {
      preview.value = null
      problem.value = problemOf(e)
    }
  }

  async function exportFormat(month: MonthData, format: JournalFormat, labels: JournalLabels): Promise<void> {
    if (progress.value) return
    await prepare(month)
    const built = preview.value
    if (!built) return
    abort = new AbortController()
    try {
      // Every file is made (and checked: Shift_JIS, limits) before the first one is written.
      const files = [...journalFiles(format, built, settings.value, labels), traceFile(built, labels)]
      progress.value = { file: 0, files: files.length }
      for (const [i, f] of files.entries()) {
        progress.value = { file: i + 1, files: files.length }
        const delivered = await writeFileThroughHost(f.name, 'text/csv', [f.text], {
          signal: abort.signal,
          encoding: f.encoding,
        })
        if (delivered.savedTo === 'cancelled') break
        written.value = [...written.value, delivered.fileName]
      }
    } catch (e) {
      if (!abort.signal.aborted) problem.value = problemOf(e)
    } finally {
      progress.value = null
    }
  }

  function cancel(): void {
    abort?.abort()
  }

  return {
    settings,
    problem,
    saved,
    preview,
    progress,
    written,
    loadSettings,
    saveSettings,
    prepare,
    exportFormat,
    cancel,
  }
})
