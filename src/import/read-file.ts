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
  // A known layout's header is found below any account preamble, however wide that preamble is.
  const isHeader = (cells: readonly string[]): boolean => detectLayout(cells) !== null
  return { parsed: parseCsv(decoded.text, { isHeader }), encoding: decoded.encoding, format: 'csv' }
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
