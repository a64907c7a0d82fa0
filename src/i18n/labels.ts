/**
 * The one place that turns API values into what the accountant reads: statuses, payment types, brands,
 * modes, record types, amounts (minor units → the currency's exponent), counts and time-zone names, in the
 * display language. Views call `useDisplay()` instead of printing `record.status` or `record.brand`.
 *
 * A value the API may grow (a new status or brand) has no label yet: it is shown as the API spells it,
 * never as an i18n key.
 */
import { computed } from 'vue'
import { useI18n } from 'vue-i18n'
import { formatAmount } from '../domain/currency'
import { actorLabel } from './actor'
import { formatDate, formatDateTime, formatPeriod } from './format'

/** The part of vue-i18n's composer the labels need (a fake one in unit tests). */
export interface Translator {
  t(key: string, named?: Record<string, unknown>): string
  te(key: string): boolean
}

export type LabelGroup = 'statuses' | 'paymentTypes' | 'brands' | 'tokenTypes'

/** `labels.<group>.<value>` when the display language has it, else the API's own spelling. */
export function labelOf(tr: Translator, group: LabelGroup, value: string | null | undefined): string {
  if (value === null || value === undefined || value === '') return ''
  const key = `labels.${group}.${value.trim().toLowerCase()}`
  return tr.te(key) ? tr.t(key) : value
}

/** `ledger.types.charge` / `ledger.modes.live`, same fallback. */
export function typeLabel(tr: Translator, type: string): string {
  const key = `ledger.types.${type}`
  return tr.te(key) ? tr.t(key) : type
}

export function modeLabel(tr: Translator, mode: string): string {
  const key = `ledger.modes.${mode}`
  return tr.te(key) ? tr.t(key) : mode
}

const zoneNames = new Map<string, string>()

/**
 * "日本標準時（Asia/Tokyo）", "Coordinated Universal Time (UTC)": the zone's generic name in the display
 * language with its IANA id, which is what the accountant chose and may search for.
 */
export function zoneLabel(tr: Translator, zone: string, locale: string): string {
  const cacheKey = `${locale}|${zone}`
  let name = zoneNames.get(cacheKey)
  if (name === undefined) {
    name = zoneNameOf(zone, locale) ?? zone
    zoneNames.set(cacheKey, name)
  }
  return name === zone ? zone : tr.t('labels.zone', { name, zone })
}

function zoneNameOf(zone: string, locale: string): string | null {
  const nameIn = (style: 'longGeneric' | 'long'): string | null => {
    try {
      const parts = new Intl.DateTimeFormat(locale, { timeZone: zone, timeZoneName: style }).formatToParts(0)
      return parts.find((p) => p.type === 'timeZoneName')?.value ?? null
    } catch {
      return null
    }
  }
  // Generic names ("Eastern Time") read best; where ICU only has an offset for them ("GMT+00:00" for UTC),
  // the specific long name ("Coordinated Universal Time") is better than an offset that changes with DST.
  for (const style of ['longGeneric', 'long'] as const) {
    const name = nameIn(style)
    if (name && !/^(GMT|UTC)[+−-]/.test(name)) return name
  }
  return null
}

/** Bound to the component's i18n: every display label and number in the current language. */
export function useDisplay() {
  const i18n = useI18n()
  const { t, n, locale } = i18n
  const tr: Translator = { t: (key, named) => t(key, named ?? {}), te: (key) => i18n.te(key) }
  const lang = computed(() => locale.value)
  return {
    /** For helpers outside components (audit text) that word things with the same messages. */
    tr,
    status: (value: string) => labelOf(tr, 'statuses', value),
    paymentType: (value: string) => labelOf(tr, 'paymentTypes', value),
    brand: (value: string) => labelOf(tr, 'brands', value),
    tokenType: (value: string) => labelOf(tr, 'tokenTypes', value),
    type: (value: string) => typeLabel(tr, value),
    mode: (value: string) => modeLabel(tr, value),
    /** An integer amount in minor units with its currency, e.g. "￥1,050", "$12.34". */
    money: (minor: number, currency: string) => formatAmount(minor, currency, lang.value),
    count: (value: number) => n(value),
    dateTime: (ms: number, zone?: string) => formatDateTime(ms, lang.value, zone),
    date: (ms: number, zone?: string) => formatDate(ms, lang.value, zone),
    /** An accounting month in the locale's words ("2026年10月", "October 2026"). */
    period: (period: string) => formatPeriod(period, lang.value),
    zone: (zone: string) => zoneLabel(tr, zone, lang.value),
    /** The zone's name only ("日本標準時"), for a time that already says which connection it is about. */
    zoneName: (zone: string) => zoneNameOf(zone, lang.value) ?? zone,
    /** Who did it: a typed name as typed, the unnamed default in the display language. */
    actor: (name: string) => actorLabel(tr, name),
  }
}

/** A refused backup or restore as the Settings view shows it: a code and the details it was given. */
export interface BackupRefusal {
  code: string
  params: Readonly<Record<string, string | number>>
}

/**
 * The sentence for a backup refusal. A file section the details name (history, marks, audit…) is worded
 * as Settings lists the tables, in the display language, never as the file's own name.
 */
export function backupRefusalText(tr: Translator, refused: BackupRefusal): string {
  const params: Record<string, string | number> = { ...refused.params }
  const table = params['table']
  if (typeof table === 'string' && tr.te(`settings.tables.${table}`))
    params['table'] = tr.t(`settings.tables.${table}`)
  // A restore that stopped before its switch: the cache was never touched (restoreStaging).
  if (refused.code === 'restore_failed') return tr.t('settings.restoreStaging.failed', params)
  if (tr.te(`backupTrust.errors.${refused.code}`)) return tr.t(`backupTrust.errors.${refused.code}`, params)
  return tr.t(`settings.backupStream.errors.${refused.code}`, params)
}
