/** Locale- and time-zone-aware display of dates and times (the accounting time zone, not the browser's). */
const cache = new Map<string, Intl.DateTimeFormat>()

function formatter(
  locale: string,
  timeZone: string | undefined,
  options: Intl.DateTimeFormatOptions,
): Intl.DateTimeFormat {
  const key = `${locale}|${timeZone ?? ''}|${JSON.stringify(options)}`
  let f = cache.get(key)
  if (!f) {
    f = new Intl.DateTimeFormat(locale, { ...options, ...(timeZone ? { timeZone } : {}) })
    cache.set(key, f)
  }
  return f
}

export function formatDateTime(ms: number, locale: string, timeZone?: string): string {
  return formatter(locale, timeZone, {
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
  }).format(ms)
}

export function formatDate(ms: number, locale: string, timeZone?: string): string {
  return formatter(locale, timeZone, { year: 'numeric', month: '2-digit', day: '2-digit' }).format(ms)
}

export function formatTime(ms: number, locale: string, timeZone?: string): string {
  return formatter(locale, timeZone, {
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
  }).format(ms)
}

/**
 * An accounting month (`YYYY-MM`) in words of the locale: "2026年10月", "October 2026". The month is a
 * calendar label, not an instant, so it is formatted in UTC; anything not shaped `YYYY-MM` is shown as is.
 */
export function formatPeriod(period: string, locale: string): string {
  const m = /^(\d{4})-(\d{2})$/.exec(period)
  if (!m) return period
  const month = Number(m[2])
  if (month < 1 || month > 12) return period
  return formatter(locale, 'UTC', { year: 'numeric', month: 'long' }).format(
    Date.UTC(Number(m[1]), month - 1, 1),
  )
}

const counts = new Map<string, Intl.NumberFormat>()

/**
 * A count in the locale's digits and grouping, as vue-i18n's `n(value)` gives it, from one formatter per
 * locale: `n` builds a new Intl.NumberFormat on every call, and the sync panel formats a few dozen counts
 * each time it repaints.
 */
export function formatCount(value: number, locale: string): string {
  let f = counts.get(locale)
  if (!f) counts.set(locale, (f = new Intl.NumberFormat(locale)))
  return f.format(value)
}
