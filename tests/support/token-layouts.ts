/**
 * The search token part layouts releases wrote before the marked one, built from a part's columns, so
 * tests and benches can store and measure them beside what the writer stores now.
 */
import { joinMarked, markedWords, type MarkedText } from '../../src/db/marked-tokens'
import type { DayTokensRecord, MarkedDayTokensRecord, PackedDayTokensRecord } from '../../src/db/storage-rows'
import { tokenColumnsOfAny } from '../../src/db/token-rows'
import { unpackUuid, UUID_SLOT } from '../../src/db/uuid-tokens'

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

/**
 * The marked layout as written before UUID tokens were packed (each UUID a marked Latin-1 chunk, the
 * resource id's first when it leads), built from a marked row as the writer stores it now.
 */
export function oldMarkedTokenRow(row: MarkedDayTokensRecord): MarkedDayTokensRecord {
  const columns = tokenColumnsOfAny(row)
  const texts = columns.texts.map((text): MarkedText => {
    if (typeof text === 'string') throw new Error('a marked row holds marked texts')
    const ids = text.ids ?? ''
    const chunks: string[] = []
    for (let at = 0; at < ids.length; at += UUID_SLOT)
      chunks.push('\n' + markedWords(unpackUuid(ids.slice(at, at + UUID_SLOT))))
    const [lead = '', ...rest] = text.idFirst ? chunks : ['', ...chunks]
    return { latin: lead + text.latin + rest.join(''), wide: text.wide }
  })
  const { ids: _ids, idCounts: _counts, ...before } = row
  return { ...before, ...joinMarked(texts) }
}
