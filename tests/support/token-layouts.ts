/**
 * The search token part layouts releases wrote before the marked one, built from a part's columns, so
 * tests and benches can store and measure them beside what the writer stores now.
 */
import type { DayTokensRecord, PackedDayTokensRecord } from '../../src/db/storage-rows'

/** The packed layout: keys, texts and fields each joined into one value (fields as combinations). */
export function oldPackedTokenRow(columns: DayTokensRecord): PackedDayTokensRecord {
  const combos: string[] = []
  let fieldIndex = ''
  columns.keys.forEach((_, i) => {
    const combo = columns.fields.slice(i * 6, i * 6 + 6).join('\u0001')
    if (!combos.includes(combo)) combos.push(combo)
    fieldIndex += String.fromCharCode(combos.indexOf(combo))
  })
  const { connectionId, day, part, times } = columns
  return {
    connectionId,
    day,
    part,
    times,
    keyText: columns.keys.join('\n'),
    text: columns.texts.join('\n\n'),
    fieldCombos: combos.join('\u0002'),
    fieldIndex,
  }
}

/**
 * What a record's token text answers, in a form two layouts can be compared by: its tokens without any
 * that is the start of another (a term begins one of those exactly when it begins one of the whole
 * list), sorted. The marked layout keeps a record's tokens in this sense, not their order or cuts.
 */
export function tokenSetOf(text: string): string[] {
  const tokens = [...new Set(text.split('\n').filter(Boolean))]
  return tokens.filter((t) => !tokens.some((o) => o !== t && o.startsWith(t))).sort()
}
