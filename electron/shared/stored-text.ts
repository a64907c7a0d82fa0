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
  // The keys from the item down to the value being visited: a path is spelled only for a string that is
  // cut or too long, not for every value.
  const keys: (string | number)[] = []
  const pathNow = (): string => keys.reduce<string>((path, key) => pathOf(path, key), '')
  const visit = (value: unknown): unknown => {
    size += 4
    if (typeof value === 'string') {
      size += Math.min(value.length, max)
      if (value.length <= max) return value
      const path = pathNow()
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
      for (let i = 0; i < list.length; i++) {
        const v = list[i]
        keys.push(i)
        const next = visit(v)
        keys.pop()
        if (next !== v) (copy ??= [...list])[i] = next
      }
      return copy ?? list
    }
    if (typeof value !== 'object' || value === null) return value
    const record = value as Record<string, unknown>
    let copy: Record<string, unknown> | undefined
    for (const key in record) {
      if (!Object.prototype.hasOwnProperty.call(record, key)) continue
      const v = record[key]
      if (keys.length === 0 && key === CUT_FIELDS_KEY) {
        copy ??= { ...record }
        delete copy[key]
        continue
      }
      size += Math.min(key.length, max) + 4
      keys.push(key)
      const next = visit(v)
      keys.pop()
      if (key.length > max) {
        const path = pathNow()
        cutPaths.push(`${path === '' ? '' : `${path}.`}(key ${cut(key, 40)})`)
        copy ??= { ...record }
        delete copy[key]
        copy[cut(key, max)] = next
      } else if (next !== v) (copy ??= { ...record })[key] = next
    }
    return copy ?? value
  }
  const capped = visit(item)
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
