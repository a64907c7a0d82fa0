/**
 * Matching: import an order or bank file (decode, map its columns, remember the mapping as a named
 * profile), propose matches with the rules of src/reconcile/matching, and let the accountant accept,
 * reject or pick. Accepting marks the records reconciled with a link to the row, audited like any mark.
 */
import { appError, toAppError, type AppError } from '../platform/app-error'
import { defineStore } from 'pinia'
import { computed, ref, shallowRef } from 'vue'
import { z } from 'zod'
import { appCache } from '../db/cache'
import { ImportsRepository } from '../db/imports-repository'
import type {
  CachedConnection,
  HistoryRecord,
  ImportRecord,
  ImportedRowRecord,
  MarkRecord,
  RecordKey,
} from '../db/records'
import { decodeBytes } from '../import/decode'
import { parseCsv, type ParsedCsv } from '../import/parse'
import { isXlsx, readXlsx } from '../import/xlsx'
import {
  applyProfile,
  fileHash,
  mappingProfileSchema,
  suggestProfile,
  type ImportError,
  type ImportSource,
  type MappingProfile,
} from '../import/profiles'
import { planMarks } from '../reconcile/marking'
import { proposeMatches, type AmbiguousMatch, type MatchProposal } from '../reconcile/matching'

const PROFILES_KEY = 'importProfiles'
const DAY_MS = 86_400_000

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

export const useMatchStore = defineStore('match', () => {
  const connections = ref<CachedConnection[]>([])
  const connectionId = ref<string | null>(null)
  const source = ref<ImportSource>('orders')
  const pending = shallowRef<PendingFile | null>(null)
  const profile = ref<MappingProfile | null>(null)
  const profiles = ref<MappingProfile[]>([])
  const importErrors = ref<ImportError[]>([])
  const imports = ref<ImportRecord[]>([])
  const importId = ref<string | null>(null)
  const rows = shallowRef<ImportedRowRecord[]>([])
  const proposals = shallowRef<MatchProposal[]>([])
  const ambiguous = shallowRef<AmbiguousMatch[]>([])
  const unmatchedRows = shallowRef<number[]>([])
  const records = shallowRef(new Map<RecordKey, HistoryRecord>())
  const rejected = ref(new Set<number>())
  const notice = ref<MatchNotice | null>(null)
  const error = ref<AppError | null>(null)
  const toleranceDays = ref(3)

  const connection = computed(() => connections.value.find((c) => c.id === connectionId.value) ?? null)
  const repo = () => new ImportsRepository(appCache().db)

  async function init(): Promise<void> {
    const cache = appCache()
    connections.value = await cache.connections.list()
    connectionId.value ??= connections.value[0]?.id ?? null
    profiles.value = await cache.settings.get(PROFILES_KEY, z.array(mappingProfileSchema), [])
    await loadImports()
  }

  async function loadImports(): Promise<void> {
    if (!connectionId.value) return
    imports.value = await repo().list(connectionId.value)
  }

  /** Reads a chosen file: encoding, CSV, and a mapping (a saved profile for the same columns, or a guess). */
  /** `defaultName`: what a new mapping profile is called, in the display language (the view knows it). */
  async function chooseFile(file: File, defaultName?: string): Promise<void> {
    error.value = null
    notice.value = null
    importErrors.value = []
    try {
      const bytes = new Uint8Array(await file.arrayBuffer())
      let parsed: ParsedCsv
      let encoding: string
      if (isXlsx(file.name, bytes)) {
        parsed = await readXlsx(bytes)
        encoding = 'xlsx'
      } else {
        const decoded = decodeBytes(bytes)
        parsed = parseCsv(decoded.text)
        encoding = decoded.encoding
      }
      pending.value = { name: file.name, bytes, encoding, parsed }
      const saved = profiles.value.find(
        (p) =>
          p.source === source.value &&
          Object.values(p.columns).every((h) => !h || parsed.headers.includes(h)),
      )
      const zone = connection.value?.timeZone ?? 'UTC'
      const guess = suggestProfile(parsed.headers, source.value)
      profile.value = saved ?? {
        id: `${source.value}-${Date.now()}`,
        name: defaultName ?? (source.value === 'orders' ? 'Order export' : 'Bank statement'),
        source: source.value,
        columns: { date: guess.date ?? '', amount: guess.amount ?? '', ...omitUndefined(guess) },
        defaultCurrency: 'JPY',
        timeZone: zone,
      }
    } catch (e) {
      error.value = toAppError(e)
      pending.value = null
    }
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
    const checked = mappingProfileSchema.safeParse(JSON.parse(JSON.stringify(profile.value)))
    if (!checked.success) {
      error.value = appError(
        'invalid_argument',
        checked.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '),
        checked.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })),
      )
      return
    }
    const p = checked.data
    const applied = applyProfile(file.parsed, p)
    importErrors.value = applied.errors
    if (applied.rows.length === 0) {
      error.value = null
      notice.value = null
      return
    }
    const saved = [...profiles.value.filter((x) => x.id !== p.id), p]
    // A plain copy: Vue's reactive proxies cannot be cloned into IndexedDB.
    await appCache().settings.set(PROFILES_KEY, JSON.parse(JSON.stringify(saved)) as MappingProfile[])
    profiles.value = saved
    const id = `${p.source}-${Date.now().toString(36)}`
    const record: ImportRecord = {
      connectionId: conn.id,
      id,
      source: p.source,
      fileName: file.name,
      hash: await fileHash(file.bytes),
      importedAt: Date.now(),
      rowCount: applied.rows.length,
      profileName: p.name,
      encoding: file.encoding,
    }
    const result = await repo().add(
      record,
      applied.rows.map((r) => ({ ...r, connectionId: conn.id, importId: id, matchedKeys: [] })),
    )
    notice.value = result.added
      ? { kind: 'imported', count: applied.rows.length }
      : { kind: 'duplicate', importedAt: result.existing.importedAt }
    importId.value = result.added ? id : result.existing.id
    pending.value = null
    await loadImports()
    await match()
  }

  /** Proposes matches for the chosen import's rows that are not matched yet. */
  async function match(): Promise<void> {
    const conn = connection.value
    if (!conn || !importId.value) return
    const cache = appCache()
    const all = await repo().rows(conn.id, importId.value)
    rows.value = all
    const open = all.filter((r) => r.matchedKeys.length === 0)
    if (open.length === 0) {
      proposals.value = []
      ambiguous.value = []
      unmatchedRows.value = []
      return
    }
    const from = Math.min(...open.map((r) => r.at)) - (toleranceDays.value + 1) * DAY_MS
    const to = Math.max(...open.map((r) => r.at)) + (toleranceDays.value + 1) * DAY_MS
    const history = await cache.history.inRange(conn.id, from, to)
    const charges = await cache.charges.inRange(conn.id, from, to)
    const marks = await cache.marks.getMany(conn.id, history)
    // Records already reconciled are not offered again.
    const taken = new Set(marks.filter((m): m is MarkRecord => m?.state === 'reconciled').map((m) => m.key))
    const candidates = history.filter((h) => !taken.has(h.key))
    records.value = new Map(candidates.map((h) => [h.key, h]))
    const result = proposeMatches({
      rows: open,
      history: candidates,
      charges,
      timeZone: conn.timeZone,
      dateToleranceDays: toleranceDays.value,
    })
    proposals.value = result.proposals
    ambiguous.value = result.ambiguous
    unmatchedRows.value = result.unmatchedRows
    rejected.value = new Set()
  }

  /** Accepts proposals (or hand-picked pairs): marks the records with a link to their row, in one go. */
  async function accept(chosen: { rowLine: number; keys: RecordKey[]; rule: string }[]): Promise<void> {
    const conn = connection.value
    const imp = importId.value
    if (!conn || !imp || chosen.length === 0) return
    const cache = appCache()
    try {
      const keys = chosen.flatMap((c) => c.keys)
      const recs = (await cache.history.getMany(conn.id, keys)).filter(
        (r): r is HistoryRecord => r !== undefined,
      )
      const current = await cache.marks.getMany(conn.id, recs)
      const marks = new Map<RecordKey, MarkRecord>()
      current.forEach((m) => m && marks.set(m.key, m))
      const locks = new Set((await cache.locks.list(conn.id)).map((l) => l.period))
      const matchRefs = new Map<RecordKey, string>()
      for (const c of chosen) for (const k of c.keys) matchRefs.set(k, `${source.value}:${imp}:${c.rowLine}`)
      const name = await cache.settings.getRaw('actorName')
      const plan = planMarks({
        action: 'mark',
        records: recs,
        marks,
        locks,
        matchRefs,
        actor: typeof name === 'string' && name.trim() ? name : 'accountant',
        now: Date.now(),
        timeZone: conn.timeZone,
      })
      if (plan.refused.length > 0) {
        notice.value = { kind: 'refusedLocked', count: plan.refused.length }
        return
      }
      await repo().accept(
        conn.id,
        plan,
        chosen.map((c) => ({ importId: imp, line: c.rowLine, keys: c.keys })),
        recs,
      )
      notice.value = { kind: 'accepted', count: chosen.length }
      await match()
    } catch (e) {
      error.value = toAppError(e)
    }
  }

  function acceptAbove(threshold: number): Promise<void> {
    return accept(proposals.value.filter((p) => p.confidence >= threshold && !rejected.value.has(p.rowLine)))
  }

  function reject(rowLine: number): void {
    rejected.value = new Set([...rejected.value, rowLine])
  }

  return {
    connections,
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
    rejected,
    notice,
    error,
    toleranceDays,
    init,
    loadImports,
    chooseFile,
    importPending,
    match,
    accept,
    acceptAbove,
    reject,
  }
})

function omitUndefined<T extends object>(value: T): { [K in keyof T]: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as {
    [K in keyof T]: Exclude<T[K], undefined>
  }
}
