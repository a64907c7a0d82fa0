/**
 * Dates written without a year ("10/6", "10月6日 14:30", "10月6日 14時30分"), as shop systems print them. The year comes from
 * the file itself: its other dates (the year that puts the date nearest their median day), otherwise a
 * year (and month) in its name ("orders_2026-10.csv"). With neither, the date is refused, never guessed.
 */
import { parseDateDay, withColonTime } from './parse'

const YEARLESS_RE = /^(\d{1,2})\s*(?:[/.-]|月)\s*(\d{1,2})\s*日?((?:\s+|T)\d{1,2}:\d{2}(?::\d{2})?)?$/
const NAME_RE = /(?<!\d)(20\d{2})(?:[-_.年]?(0[1-9]|1[0-2])(?!\d)|(?!\d))/
const DAY_MS = 86_400_000

/** Month, day and time of a date without a year; null when the text has a year or is not such a date. */
export function yearlessParts(text: string): { month: number; day: number; time: string } | null {
  const m = YEARLESS_RE.exec(withColonTime(text.normalize('NFKC').trim()))
  if (!m) return null
  const month = Number(m[1])
  const day = Number(m[2])
  if (month < 1 || month > 12 || day < 1 || day > 31) return null
  return { month, day, time: m[3] ?? '' }
}

function dayNumber(year: number, month: number, day: number): number {
  return Date.UTC(year, month - 1, day) / DAY_MS
}

/**
 * What the year of a yearless date is decided against: the median of the file's dated cells (as day
 * numbers), else the middle of the year or month a file name gives; null when the file gives neither.
 */
export function yearReference(dateTexts: readonly string[], fileName: string | undefined): number | null {
  const days: number[] = []
  for (const text of dateTexts) {
    if (days.length >= 5000) break
    if (yearlessParts(text) !== null) continue
    const parsed = parseDateDay(text, 'UTC')
    if (parsed.ok) {
      const [y, m, d] = parsed.value.day.split('-').map(Number)
      days.push(dayNumber(y ?? 0, m ?? 1, d ?? 1))
    }
  }
  if (days.length > 0) {
    days.sort((a, b) => a - b)
    return days[Math.floor(days.length / 2)] ?? null
  }
  const named = fileName === undefined ? null : NAME_RE.exec(fileName)
  if (!named?.[1]) return null
  const year = Number(named[1])
  return named[2] ? dayNumber(year, Number(named[2]), 15) : dayNumber(year, 7, 1)
}

/** The date with the year nearest the reference, as `YYYY/M/D[ time]` for the date parser. */
export function withYear(parts: { month: number; day: number; time: string }, reference: number): string {
  const year = new Date(reference * DAY_MS).getUTCFullYear()
  let best = year
  for (const y of [year - 1, year + 1]) {
    const distance = Math.abs(dayNumber(y, parts.month, parts.day) - reference)
    if (distance < Math.abs(dayNumber(best, parts.month, parts.day) - reference)) best = y
  }
  return `${best}/${parts.month}/${parts.day}${parts.time}`
}
