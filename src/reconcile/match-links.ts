/**
 * The links a mark keeps to the imported lines it was matched to. A record has at most
 * one link per side: **sales** (an order file's line: the order it was sold under) and **cash** (a bank
 * file's line: the deposit that paid it). They are stored in the mark's `matchRef` as space-separated
 * `orders:<importId>:<line>` and `bank:<importId>:<line>`, so no schema change was needed; this module is
 * the one place that reads or writes that text. Parts it does not understand (refs written by earlier
 * versions, such as `bank:7`) are kept as they are, never dropped.
 */
import type { LinkedRow, MatchLink } from '../domain/mark-plan'
import type { ImportSource, RecordKey } from '../domain/records'

export type LinkSide = 'sales' | 'cash'

export type { LinkedRow, MatchLink }

export interface MatchLinks {
  sales: MatchLink | null
  cash: MatchLink | null
  /** Parts of the ref this version cannot read, kept verbatim. */
  other: string[]
}

const LINK = /^(orders|bank):([^\s:]+):(\d+)$/

export function sideOf(source: ImportSource): LinkSide {
  return source === 'bank' ? 'cash' : 'sales'
}

export function parseMatchLink(part: string): MatchLink | null {
  const m = LINK.exec(part)
  if (!m) return null
  return { source: m[1] as ImportSource, importId: m[2] as string, line: Number(m[3]) }
}

export function formatMatchLink(link: MatchLink): string {
  if (/[\s:]/.test(link.importId) || link.importId === '')
    throw new RangeError(`not an import id: ${JSON.stringify(link.importId)}`)
  if (!Number.isInteger(link.line) || link.line < 0) throw new RangeError(`not a line: ${link.line}`)
  return `${link.source}:${link.importId}:${link.line}`
}

/** The links of a mark's `matchRef` (absent or empty: none). A second link of one side wins. */
export function parseMatchRef(ref: string | null | undefined): MatchLinks {
  const links: MatchLinks = { sales: null, cash: null, other: [] }
  for (const part of (ref ?? '').split(/\s+/)) {
    if (part === '') continue
    const link = parseMatchLink(part)
    if (link) links[sideOf(link.source)] = link
    else links.other.push(part)
  }
  return links
}

/** The `matchRef` text of some links; undefined when there are none (the mark carries no field). */
export function formatMatchRef(links: MatchLinks): string | undefined {
  const parts = [
    ...links.other,
    ...(links.sales ? [formatMatchLink(links.sales)] : []),
    ...(links.cash ? [formatMatchLink(links.cash)] : []),
  ]
  return parts.length > 0 ? parts.join(' ') : undefined
}

/** `ref` with `link` as its side's link (replacing the side's earlier one); the other side is kept. */
export function withLink(ref: string | null | undefined, link: MatchLink): string {
  const links = parseMatchRef(ref)
  links[sideOf(link.source)] = link
  return formatMatchRef(links) as string
}

/** `ref` without the links to one import; undefined when nothing is left. */
export function withoutImport(ref: string | null | undefined, importId: string): string | undefined {
  const links = parseMatchRef(ref)
  if (links.sales?.importId === importId) links.sales = null
  if (links.cash?.importId === importId) links.cash = null
  return formatMatchRef(links)
}

/** Whether `ref` links to the import. */
export function linksTo(ref: string | null | undefined, importId: string): boolean {
  const links = parseMatchRef(ref)
  return links.sales?.importId === importId || links.cash?.importId === importId
}

/** `importId␁line`: how a link finds its imported row. */
export function rowIdOf(link: Pick<MatchLink, 'importId' | 'line'>): string {
  return `${link.importId}\u0001${link.line}`
}

/** Records linked to each row (the reverse of the marks' links), e.g. the records a deposit pays. */
export function recordsByRow(
  marks: Iterable<{ key: RecordKey; matchRef?: string }>,
): Map<string, RecordKey[]> {
  const out = new Map<string, RecordKey[]>()
  for (const m of marks) {
    const links = parseMatchRef(m.matchRef)
    for (const link of [links.sales, links.cash]) {
      if (!link) continue
      const id = rowIdOf(link)
      const list = out.get(id)
      if (list) list.push(m.key)
      else out.set(id, [m.key])
    }
  }
  return out
}

export type LinkDescription =
  | { side: 'sales'; line: number; fileName: string; orderNumber: string | null }
  | { side: 'cash'; line: number; fileName: string; at: number; amount: number; currency: string }
  /** The link's file was removed (or is not loaded): only the side and the line are known. */
  | { side: LinkSide; line: number; gone: true }
  /** A part of an older ref this version cannot read, shown as it is. */
  | { side: null; raw: string }

/** The links of a mark's `matchRef`, sales first, described from their rows (by `rowIdOf`). */
export function describeMatchRef(
  ref: string | null | undefined,
  rows: ReadonlyMap<string, LinkedRow>,
): LinkDescription[] {
  const links = parseMatchRef(ref)
  const out: LinkDescription[] = []
  for (const link of [links.sales, links.cash]) {
    if (!link) continue
    const side = sideOf(link.source)
    const row = rows.get(rowIdOf(link))
    if (!row) out.push({ side, line: link.line, gone: true })
    else if (side === 'sales')
      out.push({ side, line: row.line, fileName: row.fileName, orderNumber: row.orderNumber })
    else
      out.push({
        side,
        line: row.line,
        fileName: row.fileName,
        at: row.at,
        amount: row.amount,
        currency: row.currency,
      })
  }
  for (const raw of links.other) out.push({ side: null, raw })
  return out
}
