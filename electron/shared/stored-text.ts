/**
 * How much text of a payment-service item Closebook keeps. Every string of an item (values and object
 * keys, at any depth) is kept up to `MAX_STORED_TEXT` characters; a longer one is cut there, ends with
 * "…", and its path is listed in the item's `closebook_cut_fields`, which the record detail shows. Only
 * free text is ever cut: a field of the accounting core (ids, type, amount, currency, status, time, mode,
 * store) that is too long is not cut but makes the item quarantined, since a cut value would be a wrong
 * one. An item still larger than `MAX_STORED_ITEM` characters once cut is quarantined too.
 */

/** Characters (UTF-16 code units) kept of one string: a name, an e-mail, a metadata value, a descriptor. */
export const MAX_STORED_TEXT = 4096
/** Characters of an item's JSON, once its strings are cut: a real item is 1–3 KB. */
export const MAX_STORED_ITEM = 256 * 1024
/** Where an item lists the paths of the strings that were cut (never sent by the service; one it sends is dropped). */
export const CUT_FIELDS_KEY = 'closebook_cut_fields'

const ELLIPSIS = '…'

/** `s` cut to `max` code units without splitting a surrogate pair, marked with an ellipsis. */
function cut(s: string, max: number): string {
  let end = max
  const code = s.charCodeAt(end - 1)
  if (code >= 0xd800 && code <= 0xdbff) end--
  return s.slice(0, end) + ELLIPSIS
}

function pathOf(parent: string, key: string | number): string {
  if (typeof key === 'number') return `${parent}[${key}]`
  return parent === '' ? key : `${parent}.${key}`
}

export interface CappedItem {
  /** The item with its free text cut (the same object when nothing was cut or dropped). */
  item: unknown
  /** Paths of the strings that were cut. */
  cut: string[]
  /** Core fields too long to keep: the item must be quarantined. */
  tooLong: { path: string; message: string }[]
  /** About how many characters the cut item's JSON has (strings and keys, plus a few per value). */
  size: number
}

/**
 * Cuts every string of `item` longer than `max`, except those at `corePaths` (top-level field names),
 * which are reported instead. Copies only what changes; depth is bounded by the caller (json-depth.ts).
 */
export function capItemText(
  item: unknown,
  corePaths: ReadonlySet<string>,
  max = MAX_STORED_TEXT,
): CappedItem {
  const cutPaths: string[] = []
  const tooLong: CappedItem['tooLong'] = []
  let size = 0
  const visit = (value: unknown, path: string): unknown => {
    size += 4
    if (typeof value === 'string') {
      size += Math.min(value.length, max)
      if (value.length <= max) return value
      if (corePaths.has(path)) {
        tooLong.push({ path, message: `${value.length} characters, more than the ${max} kept` })
        return value
      }
      cutPaths.push(path)
      return cut(value, max)
    }
    if (Array.isArray(value)) {
      const list = value as unknown[]
      let copy: unknown[] | undefined
      list.forEach((v, i) => {
        const next = visit(v, pathOf(path, i))
        if (next !== v) (copy ??= [...list])[i] = next
      })
      return copy ?? list
    }
    if (typeof value !== 'object' || value === null) return value
    let copy: Record<string, unknown> | undefined
    const entries = Object.entries(value as Record<string, unknown>)
    for (const [key, v] of entries) {
      if (path === '' && key === CUT_FIELDS_KEY) {
        copy ??= { ...(value as Record<string, unknown>) }
        delete copy[key]
        continue
      }
      size += Math.min(key.length, max) + 4
      const keyPath = pathOf(path, key)
      const next = visit(v, keyPath)
      if (key.length > max) {
        cutPaths.push(`${path === '' ? '' : `${path}.`}(key ${cut(key, 40)})`)
        copy ??= { ...(value as Record<string, unknown>) }
        delete copy[key]
        copy[cut(key, max)] = next
      } else if (next !== v) (copy ??= { ...(value as Record<string, unknown>) })[key] = next
    }
    return copy ?? value
  }
  const capped = visit(item, '')
  if (cutPaths.length === 0 || typeof capped !== 'object' || capped === null || Array.isArray(capped))
    return { item: capped, cut: cutPaths, tooLong, size }
  return { item: { ...capped, [CUT_FIELDS_KEY]: cutPaths.slice(0, 50) }, cut: cutPaths, tooLong, size }
}

/** The paths a stored item says were cut, or [] (the renderer reads its raw records with this). */
export function cutFieldsOf(raw: unknown): string[] {
  if (typeof raw !== 'object' || raw === null) return []
  const list = (raw as Record<string, unknown>)[CUT_FIELDS_KEY]
  return Array.isArray(list) ? list.filter((p): p is string => typeof p === 'string').slice(0, 50) : []
}
