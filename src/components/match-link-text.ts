/**
 * A record's match links in words: "Order ORD-12 (orders.csv, line 2)", "Deposit
 * 2026-10-15 ¥12,000 (bank.csv, line 7)". Amounts in major units with their currency.
 */
import type { useDisplay } from '../i18n/labels'
import { parseMatchRef } from '../reconcile/match-links'
import type { LinkDescription } from '../reconcile/match-links'

type Display = ReturnType<typeof useDisplay>

export function matchLinkText(display: Display, timeZone: string, d: LinkDescription): string {
  const { tr } = display
  if (d.side === null) return d.raw
  if ('gone' in d) return tr.t(`ledger.matchLinks.gone.${d.side}`, { line: d.line })
  if (d.side === 'sales')
    return d.orderNumber
      ? tr.t('ledger.matchLinks.order', { order: d.orderNumber, file: d.fileName, line: d.line })
      : tr.t('ledger.matchLinks.orderLine', { file: d.fileName, line: d.line })
  return tr.t('ledger.matchLinks.deposit', {
    date: display.date(d.at, timeZone),
    amount: display.money(d.amount, d.currency),
    file: d.fileName,
    line: d.line,
  })
}

/** Every link of a ref, joined: what the "Matched to" cell says. */
export function matchRefText(
  display: Display,
  timeZone: string,
  describe: (ref: string | undefined) => LinkDescription[],
  ref: string | undefined,
): string {
  return describe(ref)
    .map((d) => matchLinkText(display, timeZone, d))
    .join(' · ')
}

/** How an audit entry changed the links ("linked to …", "link removed: …"); '' when they did not change. */
export function linkChangeText(
  display: Display,
  timeZone: string,
  describe: (ref: string | undefined) => LinkDescription[],
  entry: { before: unknown; after: unknown },
): string {
  const refOf = (v: unknown): string | undefined =>
    typeof v === 'object' && v !== null && typeof (v as { matchRef?: unknown }).matchRef === 'string'
      ? (v as { matchRef: string }).matchRef
      : undefined
  const before = parseMatchRef(refOf(entry.before))
  const after = parseMatchRef(refOf(entry.after))
  const same = (a: typeof before.sales, b: typeof before.sales): boolean =>
    a?.importId === b?.importId && a?.line === b?.line
  const parts: string[] = []
  for (const side of ['sales', 'cash'] as const) {
    if (same(before[side], after[side])) continue
    const afterRef = after[side] ? refOf(entry.after) : undefined
    const added = describe(afterRef).find((d) => d.side === side)
    if (added)
      parts.push(display.tr.t('ledger.matchLinks.linked', { link: matchLinkText(display, timeZone, added) }))
    else if (before[side]) {
      const removed = describe(refOf(entry.before)).find((d) => d.side === side)
      if (removed)
        parts.push(
          display.tr.t('ledger.matchLinks.unlinked', { link: matchLinkText(display, timeZone, removed) }),
        )
    }
  }
  return parts.join(' · ')
}
