/**
 * Matching: import an order or bank file (decode, map its columns, remember the mapping as a named
 * profile), propose matches with the rules of src/reconcile/matching, and let the accountant accept,
 * reject or pick. Accepting marks the records reconciled with a link to the row, audited like any mark.
 */
import { timeSpanOf } from '../domain/time-span'
import { appError, toAppError, type AppError } from '../platform/app-error'
import { defineStore } from 'pinia'
import { computed, ref, shallowRef } from 'vue'
import { z } from 'zod'
import { appCache } from '../db/cache'
import { ImportsRepository } from '../db/imports-repository'
import type { AcceptPlanner, MarkAuthor, RemovalPlanner } from '../db/marking-service'
import { planMarks, planUnlink } from '../reconcile/marking'
import type {
  CachedConnection,
  HistoryRecord,
  ImportRecord,
  ImportedRowRecord,
  RecordKey,
} from '../domain/records'
import { checkImportFileSize, ImportFileError } from '../import/limits'
import { FILE_ISSUE_CODES, type FileIssue, type FileIssueCode, type ParsedCsv } from '../import/parse'
import {
  applyProfile,
  fileHash,
  mappingProfileSchema,
  suggestProfile,
  type AppliedProfile,
  type ImportError,
  type ImportSource,
  type MappingProfile,
} from '../import/profiles'
import { dropAlreadyImported } from '../import/overlap'
import { builtInProfileFor, readImportFile } from '../import/read-file'
import { newestAnswer } from './newest-answer'
import {
  DEFAULT_PAYOUT_MODEL,
  proposeMatches,
  rejectionKey,
  type AmbiguousMatch,
  type Explanation,
  type MatchProposal,
  type MatchSide,
  type PayoutModel,
} from '../reconcile/matching'

const PROFILES_KEY = 'importProfiles'
const DAY_MS = 86_400_000
/** Longest run of days one payout covers (matching.ts), so a deposit's records are loaded. */
const PAYOUT_SPAN_DAYS = 31

const payoutModelSchema = z.object({
  cutoffDays: z.array(z.number().int().min(1).max(31)).max(31),
  perStore: z.boolean(),
  transferFee: z.number().int().min(0),
  transferFeeTaxPercent: z.number().min(0).max(100),
  minimumPayout: z.number().int().min(0),
  minLagDays: z.number().int().min(0).max(60),
  maxLagDays: z.number().int().min(0).max(60),
  amountTolerance: z.number().int().min(0),
})

/** Settings keys of the Matching payout model, one per connection. */
export const PAYOUT_MODEL_KEY_PREFIX = 'payoutModel:'
const payoutKey = (connectionId: string): string => `${PAYOUT_MODEL_KEY_PREFIX}${connectionId}`

/** The connection's payout model as saved in the Match view (the default until one is saved). */
export async function readPayoutModel(connectionId: string): Promise<PayoutModel> {
  return appCache().settings.get(payoutKey(connectionId), payoutModelSchema, { ...DEFAULT_PAYOUT_MODEL })
}
const rejectedKey = (connectionId: string): string => `matchRejected:${connectionId}`

export interface PendingFile {
  name: string
  bytes: Uint8Array
  encoding: string
  parsed: ParsedCsv
}

/** What the last import or accept did; the view words it (no sentinel strings). */
export type MatchNotice =
  | { kind: 'imported'; count: number }
  | { kind: 'duplicate'; importedAt: number }
  | { kind: 'accepted'; count: number }
  | { kind: 'refusedLocked'; count: number }
  | { kind: 'removed'; count: number }
  | { kind: 'overlapAll'; count: number }
  | { kind: 'missingColumns'; fields: string[] }

/** Accepted matches mark their records reconciled with the new link (the service reads the marks). */
const planAccept =
  (author: MarkAuthor): AcceptPlanner =>
  (input) =>
    planMarks({ action: 'mark', ...input, ...author })

/** A removed import's links leave the marks it made (the service reads the marks). */
const planRemoval =
  (importId: string, author: MarkAuthor): RemovalPlanner =>
  (input) =>
    planUnlink({ ...input, importId, ...author })

/** A line that could not be read; a file problem with a `code` is said in the display language. */
export type ShownImportError =
  ImportError | (Omit<ImportError, 'code'> & { code: FileIssueCode; params?: FileIssue['params'] })

/** What importing would do, with the file's own problems among the lines refused. */
export type PendingPreview = Omit<AppliedProfile, 'errors'> & { errors: ShownImportError[] }

const FILE_ISSUE_CODE_SET: ReadonlySet<string> = new Set(FILE_ISSUE_CODES)

/** A problem of the file itself (its rows' width, its quotes), worded under `importFile`. */
export function isFileIssue(
  error: ShownImportError,
): error is Omit<ImportError, 'code'> & { code: FileIssueCode; params?: FileIssue['params'] } {
  return error.code !== undefined && FILE_ISSUE_CODE_SET.has(error.code)
}

function fileIssues(parsed: ParsedCsv): ShownImportError[] {
  return parsed.errors.map((e) => ({
    row: e.line,
    column: '',
    message: e.message,
    ...(e.code ? { code: e.code, params: e.params ?? {} } : {}),
  }))
}

export const useMatchStore = defineStore('match', () => {
  const connections = ref<CachedConnection[]>([])
  const connectionId = ref<string | null>(null)
  const source = ref<ImportSource>('orders')
  const pending = shallowRef<PendingFile | null>(null)
  const profile = ref<MappingProfile | null>(null)
  const profiles = ref<MappingProfile[]>([])
  const importErrors = ref<ShownImportError[]>([])
  const imports = ref<ImportRecord[]>([])
  const importId = ref<string | null>(null)
  const rows = shallowRef<ImportedRowRecord[]>([])
  const proposals = shallowRef<MatchProposal[]>([])
  const ambiguous = shallowRef<AmbiguousMatch[]>([])
  const unmatchedRows = shallowRef<number[]>([])
  const records = shallowRef(new Map<RecordKey, HistoryRecord>())
  const notice = ref<MatchNotice | null>(null)
  const error = ref<AppError | null>(null)
  /** A file refused for its size, archive or encoding: the view words it from the code. */
  const fileError = shallowRef<ImportFileError | null>(null)
  const toleranceDays = ref(3)
  const unmatchedReasons = shallowRef(new Map<number, Explanation>())
  const payout = ref<PayoutModel>({ ...DEFAULT_PAYOUT_MODEL })
  const rejectedPairs = ref(new Set<string>())
  /** Name of the built-in layout the chosen file was recognised as, if any. */
  const layoutName = ref<string | null>(null)
  /** The recognised built-in layout (`builtin:shopify`…): the view words its name in the UI's language. */
  const layoutId = ref<string | null>(null)
  /** Lines of the last import left out because an earlier file already held them. */
  const overlap = ref(0)

  const connection = computed(() => connections.value.find((c) => c.id === connectionId.value) ?? null)
  const repo = () => new ImportsRepository(appCache().db)
  const matchRead = newestAnswer()
  /** Matches being computed: while any is, the counts shown may be an earlier file's or state's. */
  const running = ref(0)
  const matching = computed(() => running.value > 0)

  async function init(): Promise<void> {
    const cache = appCache()
    connections.value = await cache.connections.list()
    connectionId.value ??= connections.value[0]?.id ?? null
    profiles.value = await cache.settings.get(PROFILES_KEY, z.array(mappingProfileSchema), [])
    await loadConnectionSettings()
    await loadImports()
  }

  async function loadConnectionSettings(): Promise<void> {
    if (!connectionId.value) return
    const cache = appCache()
    payout.value = await cache.settings.get(payoutKey(connectionId.value), payoutModelSchema, {
      ...DEFAULT_PAYOUT_MODEL,
    })
    rejectedPairs.value = new Set(
      await cache.settings.get(rejectedKey(connectionId.value), z.array(z.string()), []),
    )
  }

  async function savePayout(model: PayoutModel): Promise<void> {
    const conn = connection.value
    if (!conn) return
    const checked = payoutModelSchema.parse(JSON.parse(JSON.stringify(model)))
    await appCache().settings.set(payoutKey(conn.id), checked)
    payout.value = checked
    await match()
  }

  async function loadImports(): Promise<void> {
    if (!connectionId.value) return
    imports.value = await repo().list(connectionId.value)
  }

  /**
   * Reads a chosen file: encoding (or Excel, or Zengin fixed width), table, and a mapping: a saved profile
   * for the same columns, else the built-in layout its headers name (which also sets the kind of file),
   * else a guess from the header names.
   */
  /** `defaultName`: what a new mapping profile is called, in the display language (the view knows it). */
  async function chooseFile(file: File, defaultName?: string): Promise<void> {
    newProfileName = defaultName
    error.value = null
    fileError.value = null
    notice.value = null
    importErrors.value = []
    try {
      // Before a byte is read: a huge file is refused by its size, not after filling the tab's memory.
      checkImportFileSize(file.size, /\.xlsx$/i.test(file.name) ? 'xlsx' : 'csv')
      const bytes = new Uint8Array(await file.arrayBuffer())
      const read = await readImportFile(file.name, bytes)
      pending.value = { name: file.name, bytes, encoding: read.encoding, parsed: read.parsed }
      const layout = builtInProfileFor(read.parsed.headers, connection.value?.timeZone ?? 'UTC')
      if (layout) source.value = layout.source
      profile.value = profileFor(read.parsed)
    } catch (e) {
      if (e instanceof ImportFileError) fileError.value = e
      error.value = toAppError(e)
      pending.value = null
    }
  }

  let newProfileName: string | undefined

  /** The mapping for the pending file and the current kind of file (re-run when the kind changes). */
  function profileFor(parsed: ParsedCsv): MappingProfile {
    const zone = connection.value?.timeZone ?? 'UTC'
    const saved = profiles.value.find(
      (p) =>
        p.source === source.value && Object.values(p.columns).every((h) => !h || parsed.headers.includes(h)),
    )
    const layout = builtInProfileFor(parsed.headers, zone, source.value)
    layoutName.value = saved ? null : (layout?.name ?? null)
    layoutId.value = saved ? null : (layout?.id ?? null)
    if (saved) return { ...saved, timeZone: zone }
    if (layout) return layout
    const guess = suggestProfile(parsed.headers, source.value)
    return {
      id: `${source.value}-${Date.now()}`,
      name: newProfileName ?? (source.value === 'orders' ? 'Order export' : 'Bank statement'),
      source: source.value,
      columns: { date: guess.date ?? '', amount: guess.amount ?? '', ...omitUndefined(guess) },
      defaultCurrency: 'JPY',
      timeZone: zone,
    }
  }

  /** Choosing the kind after the file re-maps it as that kind (it was stored as the wrong kind before). */
  function setSource(value: ImportSource): void {
    source.value = value
    if (pending.value) profile.value = profileFor(pending.value.parsed)
  }

  /** What importing would do with the current mapping: shown before anything is stored. */
  function previewPending(): PendingPreview | null {
    const file = pending.value
    const p = profile.value
    if (!file || !p || !p.columns.date || !p.columns.amount) return null
    const applied = applyProfile(file.parsed, { ...p, source: source.value }, { fileName: file.name })
    // Lines the file itself could not give (a row of the wrong width) count as read and refused.
    const issues = fileIssues(file.parsed)
    const refused = issues.filter((i) => i.code === 'row_width').length
    return { ...applied, errors: [...issues, ...applied.errors], lineCount: applied.lineCount + refused }
  }

  /** Imports the pending file with the profile; the same file twice adds nothing and says so. */
  async function importPending(): Promise<void> {
    try {
      await importPendingFile()
    } catch (e) {
      error.value = toAppError(e)
    }
  }

  async function importPendingFile(): Promise<void> {
    const file = pending.value
    const conn = connection.value
    if (!file || !conn || !profile.value) return
    const missing = (['date', 'amount'] as const).filter((f) => !profile.value?.columns[f])
    if (missing.length > 0) {
      notice.value = { kind: 'missingColumns', fields: [...missing] }
      return
    }
    const checked = mappingProfileSchema.safeParse(
      JSON.parse(JSON.stringify({ ...profile.value, source: source.value })),
    )
    if (!checked.success) {
      error.value = appError(
        'invalid_argument',
        checked.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '),
        checked.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })),
      )
      return
    }
    const p = checked.data
    const applied = applyProfile(file.parsed, p, { fileName: file.name })
    // Structural problems of the file (an unclosed quote, a Zengin record of the wrong length) too.
    importErrors.value = [...fileIssues(file.parsed), ...applied.errors]
    overlap.value = 0
    if (applied.rows.length === 0) {
      error.value = null
      notice.value = null
      return
    }
    const hash = await fileHash(file.bytes)
    const same = await repo().findByHash(conn.id, hash)
    if (same) {
      notice.value = { kind: 'duplicate', importedAt: same.importedAt }
      importId.value = same.id
      pending.value = null
      await loadImports()
      await match()
      return
    }
    // Lines an earlier file of the same kind already holds (an overlapping download) are left out.
    const earlier = (await repo().rows(conn.id)).filter((r) => r.source === p.source)
    const { kept, dropped } = dropAlreadyImported(applied.rows, earlier)
    overlap.value = dropped.length
    if (kept.length === 0) {
      notice.value = { kind: 'overlapAll', count: dropped.length }
      pending.value = null
      return
    }
    // Built-in layouts are not saved: they are recognised again next time.
    const saved = p.id.startsWith('builtin:')
      ? profiles.value
      : [...profiles.value.filter((x) => x.id !== p.id), p]
    // A plain copy: Vue's reactive proxies cannot be cloned into IndexedDB.
    await appCache().settings.set(PROFILES_KEY, JSON.parse(JSON.stringify(saved)) as MappingProfile[])
    profiles.value = saved
    const id = `${p.source}-${Date.now().toString(36)}`
    const record: ImportRecord = {
      connectionId: conn.id,
      id,
      source: p.source,
      fileName: file.name,
      hash,
      importedAt: Date.now(),
      rowCount: kept.length,
      profileName: p.name,
      encoding: file.encoding,
    }
    const result = await repo().add(
      record,
      kept.map((r) => ({ ...r, connectionId: conn.id, importId: id, matchedKeys: [] })),
    )
    notice.value = result.added
      ? { kind: 'imported', count: kept.length }
      : { kind: 'duplicate', importedAt: result.existing.importedAt }
    importId.value = result.added ? id : result.existing.id
    pending.value = null
    await loadImports()
    await match()
  }

  /**
   * Proposes matches for the chosen import's rows that are not matched yet. Sales and cash links are kept
   * apart: an order file's rows skip records another order row is linked to, a bank file's rows skip
   * records a deposit already pays, whatever the other side did.
   */
  async function match(): Promise<void> {
    const conn = connection.value
    if (!conn || !importId.value) return
    running.value++
    try {
      await matchNewest(conn, matchRead.ask())
    } finally {
      running.value--
    }
  }

  async function matchNewest(conn: CachedConnection, isNewest: () => boolean): Promise<void> {
    const cache = appCache()
    const everything = await repo().rows(conn.id)
    const all = everything.filter((r) => r.importId === importId.value)
    const salesTaken = new Set<RecordKey>()
    const cashTaken = new Set<RecordKey>()
    for (const r of everything)
      for (const k of r.matchedKeys) (r.source === 'bank' ? cashTaken : salesTaken).add(k)
    const open = all.filter((r) => r.matchedKeys.length === 0)
    if (open.length === 0) {
      if (!isNewest()) return
      rows.value = all
      proposals.value = []
      ambiguous.value = []
      unmatchedRows.value = []
      unmatchedReasons.value = new Map()
      return
    }
    const isBank = open.some((r) => r.source === 'bank')
    const back = (isBank ? payout.value.maxLagDays + PAYOUT_SPAN_DAYS : toleranceDays.value) + 1
    const { first, last } = timeSpanOf(open, (r) => r.at)
    const from = first - back * DAY_MS
    const to = last + (toleranceDays.value + 1) * DAY_MS
    const inRange = await cache.history.inRange(conn.id, from, to)
    const charges = await cache.charges.inRange(conn.id, from, to)
    // An order's refunds come after the file's last order, often by weeks: all of them, as far as the
    // cache holds, for the charges the orders can be.
    const history = isBank
      ? inRange
      : withRecords(
          inRange,
          await cache.history.refundsOf(
            conn.id,
            inRange.filter((h) => h.type === 'charge').map((h) => h.chargeId),
          ),
        )
    const result = proposeMatches({
      rows: open,
      history,
      charges,
      timeZone: conn.timeZone,
      dateToleranceDays: toleranceDays.value,
      payout: payout.value,
      salesTaken,
      cashTaken,
      rejected: new Set(
        [...rejectedPairs.value]
          .filter((k) => k.startsWith(`${importId.value}#`))
          .map((k) => k.slice(k.indexOf('#') + 1)),
      ),
    })
    // A match asked for later (after an accept, a reject, another file) read newer rows: its answer stands.
    if (!isNewest()) return
    rows.value = all
    records.value = new Map(history.map((h) => [h.key, h]))
    proposals.value = result.proposals
    ambiguous.value = result.ambiguous
    unmatchedRows.value = result.unmatchedRows
    unmatchedReasons.value = result.unmatchedReasons
  }

  /** Who is making a change now (the name set in Settings), for the audit log. */
  async function author(timeZone: string): Promise<{ actor: string; now: number; timeZone: string }> {
    const name = await appCache().settings.getRaw('actorName')
    return { actor: typeof name === 'string' && name.trim() ? name : 'accountant', now: Date.now(), timeZone }
  }

  /**
   * Accepts proposals (or hand-picked pairs): marks the records with a link to their row, in one go. The
   * marking service reads the current marks inside the writing transaction, so what changed since the
   * proposal (a note, the other side's link, a close) is seen, kept and audited as it is.
   */
  async function accept(
    chosen: { rowLine: number; keys: RecordKey[]; rule: string; side?: MatchSide }[],
  ): Promise<void> {
    const conn = connection.value
    const imp = importId.value
    if (!conn || !imp || chosen.length === 0) return
    try {
      const done = await appCache().marking.acceptMatches(
        conn.id,
        imp,
        chosen.map((c) => ({ line: c.rowLine, keys: c.keys })),
        planAccept(await author(conn.timeZone)),
      )
      notice.value = done.written
        ? { kind: 'accepted', count: chosen.length }
        : { kind: 'refusedLocked', count: done.plan.refused.length }
      if (done.written) await match()
    } catch (e) {
      error.value = toAppError(e)
    }
  }

  function acceptAbove(threshold: number): Promise<void> {
    return accept(proposals.value.filter((p) => p.confidence >= threshold))
  }

  /** A rejected pair is remembered per connection: it is never proposed again, even after other accepts. */
  async function reject(p: { rowLine: number; keys: RecordKey[]; side: MatchSide }): Promise<void> {
    const conn = connection.value
    const imp = importId.value
    if (!conn || !imp) return
    const next = new Set(rejectedPairs.value)
    // Sales side: the order and its charge; cash side: the deposit and the whole payout.
    next.add(`${imp}#${rejectionKey(p.rowLine, p.side === 'cash' ? p.keys : p.keys.slice(0, 1))}`)
    await appCache().settings.set(rejectedKey(conn.id), [...next])
    rejectedPairs.value = next
    await match()
  }

  /**
   * Removes an import and what it did: its links leave the marks (audited); a mark that only this
   * import's match made reconciled is unmarked (its note stays). A closed month refuses the whole removal.
   */
  async function removeImport(id: string): Promise<void> {
    const conn = connection.value
    const file = imports.value.find((i) => i.id === id)
    if (!conn || !file) return
    try {
      const done = await appCache().marking.removeImport(
        conn.id,
        id,
        planRemoval(id, await author(conn.timeZone)),
      )
      if (!done.written) {
        notice.value = { kind: 'refusedLocked', count: done.plan.refused.length }
        return
      }
      const unlinked = done.plan.puts.length + done.plan.deletes.length
      notice.value = { kind: 'removed', count: unlinked }
      if (importId.value === id) {
        importId.value = null
        rows.value = []
        proposals.value = []
        ambiguous.value = []
        unmatchedRows.value = []
      }
      await loadImports()
    } catch (e) {
      error.value = toAppError(e)
    }
  }

  return {
    connections,
    matching,
    connectionId,
    connection,
    source,
    pending,
    profile,
    importErrors,
    imports,
    importId,
    rows,
    proposals,
    ambiguous,
    unmatchedRows,
    records,
    rejectedPairs,
    unmatchedReasons,
    payout,
    layoutName,
    layoutId,
    overlap,
    notice,
    error,
    fileError,
    toleranceDays,
    init,
    loadImports,
    loadConnectionSettings,
    savePayout,
    chooseFile,
    setSource,
    previewPending,
    removeImport,
    importPending,
    match,
    accept,
    acceptAbove,
    reject,
  }
})

/** `base` and the `more` records it lacks (by key). */
function withRecords(base: HistoryRecord[], more: readonly HistoryRecord[]): HistoryRecord[] {
  const keys = new Set(base.map((h) => h.key))
  return [...base, ...more.filter((h) => !keys.has(h.key))]
}

function omitUndefined<T extends object>(value: T): { [K in keyof T]: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as {
    [K in keyof T]: Exclude<T[K], undefined>
  }
}
