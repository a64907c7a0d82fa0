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
