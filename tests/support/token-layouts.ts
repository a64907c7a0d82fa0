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
