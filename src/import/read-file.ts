/**
 * From a chosen file's bytes to a table: Excel, Zengin fixed-width records or CSV (encoding detected by
 * decode.ts), and the built-in layout its headers name, if any. Shared by the Match view and the corpus
 * benchmark, so both read files the same way.
 */
import { decodeBytes } from './decode'
import { detectLayout, layoutColumnsFor } from './layouts'
import { parseCsv, type ParsedCsv } from './parse'
import type { ImportSource, MappingProfile } from './profiles'
import { isXlsx, readXlsx } from './xlsx'
import { isZengin, readZengin } from './zengin'

export interface ReadImportFile {
  parsed: ParsedCsv
  /** `utf-8`, `utf-8-bom`, `shift_jis` or `xlsx`. */
  encoding: string
  format: 'csv' | 'xlsx' | 'zengin'
}

export async function readImportFile(name: string, bytes: Uint8Array): Promise<ReadImportFile> {
  if (isXlsx(name, bytes)) return { parsed: await readXlsx(bytes), encoding: 'xlsx', format: 'xlsx' }
  const decoded = decodeBytes(bytes)
  if (isZengin(decoded.text))
    return { parsed: readZengin(decoded.text), encoding: decoded.encoding, format: 'zengin' }
  return { parsed: atLayoutHeader(parseCsv(decoded.text)), encoding: decoded.encoding, format: 'csv' }
}

/** How far below the first wide line a layout's header is looked for. */
const HEADER_SEARCH_ROWS = 30

/**
 * A bank's account preamble can be as wide as its header (Mizuho's 照会口座 line names branch, type and
 * number in as many cells): when the line taken as the header names no layout but one of the next lines
 * does, that line is the header and what is above it is preamble.
 */
export function atLayoutHeader(parsed: ParsedCsv): ParsedCsv {
  if (detectLayout(parsed.headers)) return parsed
  const limit = Math.min(parsed.rows.length, HEADER_SEARCH_ROWS)
  for (let i = 0; i < limit; i++) {
    const headers = (parsed.rows[i] ?? []).map((h) => h.trim())
    if (!detectLayout(headers)) continue
    return {
      headers,
      rows: parsed.rows.slice(i + 1),
      lines: parsed.lines.slice(i + 1),
      errors: parsed.errors.filter((e) => e.line > (parsed.lines[i] ?? 0)),
    }
  }
  return parsed
}

/** The built-in profile for a file's headers (any kind when `source` is not given), or null. */
export function builtInProfileFor(
  headers: readonly string[],
  timeZone: string,
  source?: ImportSource,
): MappingProfile | null {
  const layout = detectLayout(headers, source)
  if (!layout) return null
  return {
    id: layout.id,
    name: layout.name,
    source: layout.source,
    columns: layoutColumnsFor(layout, headers),
    defaultCurrency: 'JPY',
    timeZone,
    ...(layout.grouping ? { grouping: layout.grouping } : {}),
  }
}
