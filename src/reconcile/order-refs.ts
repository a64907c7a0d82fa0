/**
 * Order numbers as shops and integrations write them, and the rules that tie a file's order number to the
 * references the payment service holds (`merchant_transaction_id`, metadata order numbers).
 *
 * Every tie compares the digits exactly: a rule only removes decorations (a Shopify `#`, zero padding, a
 * letter prefix or suffix an integration adds), it never tolerates a different number. A decoration tie
 * needs the decoration to be known: used by at least two references on the side that carries it.
 */

/** Which rule tied an order number to a reference (i18n `match.refRule.<rule>`). */
export type RefRule = 'exact' | 'shopify_name' | 'zero_padding' | 'decoration'

/**
 * An order number as compared: width-folded (NFKC), upper case, every dash-like mark ("ー", "‐", "−", "–")
 * a hyphen, no "#" or spaces, and an all-digit number without leading zeros ("0004918" = "4918").
 */
export function normalizeRef(ref: string): string {
  const folded = /[^ -~]/.test(ref) ? ref.normalize('NFKC') : ref
  const key = folded
    .toUpperCase()
    .replace(/[\u2010-\u2015\u2212\u30fc\uff0d\u2043\ufe63]/g, '-')
    .replace(/[#\s]/g, '')
  return /^\d+$/.test(key) ? key.replace(/^0+(?=\d)/, '') : key
}

/** A number with letters around it: `ORD-0004961` is decoration `ORD-…` and number 4961. */
export interface DecoratedRef {
  /** `ORD-…` or `…-JP`: the letters, where they stand, and nothing of the digits. */
  decoration: string
  /** The digits without leading zeros. */
  number: string
}

const PREFIXED = /^([A-Z]{1,12})[-_/]?(\d+)$/
const SUFFIXED = /^(\d+)[-_/]?([A-Z]{1,12})$/

/** The decoration and number of a normalized reference; null for a plain number or any other shape. */
export function decoratedRef(key: string): DecoratedRef | null {
  const prefixed = PREFIXED.exec(key)
  if (prefixed?.[1] && prefixed[2]) {
    return { decoration: `${prefixed[1]}-…`, number: prefixed[2].replace(/^0+(?=\d)/, '') }
  }
  const suffixed = SUFFIXED.exec(key)
  if (suffixed?.[1] && suffixed[2]) {
    return { decoration: `…-${suffixed[2]}`, number: suffixed[1].replace(/^0+(?=\d)/, '') }
  }
  return null
}

/** The rule under which two references with the same normalized key are the same order number. */
export function sameKeyRule(fileRef: string, serviceRef: string): RefRule {
  const a = fileRef.trim().toUpperCase()
  const b = serviceRef.trim().toUpperCase()
  if (a === b) return 'exact'
  if (a.includes('#') !== b.includes('#')) return 'shopify_name'
  if (/^[#\s]*0\d*$/.test(a) || /^[#\s]*0\d*$/.test(b)) return 'zero_padding'
  return 'exact'
}

/** The charges a file's order number names, and the rule that tied them. */
export interface RefTie {
  /** The file's number, normalized. */
  key: string
  chargeIds: string[]
  rule: RefRule
  /** The decoration removed (`ORD-…`), under the decoration rule. */
  decoration?: string
  /** Tied by the order's other number, not its order number: which one. */
  via?: 'orderId' | 'paymentReference'
}

/**
 * The references of the payment service, indexed by normalized key and, for decorated ones, by number,
 * so a plain number in a file finds `ORD-0004961`. Decorations used only once are not known: a lone
 * `OTHER-12` never ties file order 12.
 */
export class RefIndex {
  private readonly byKey = new Map<string, string[]>()
  private readonly rawOf = new Map<string, string>()
  private readonly byNumber = new Map<string, { chargeId: string; decoration: string }[]>()
  private readonly decorations = new Map<string, number>()
  private readonly plainByNumber = new Map<string, string[]>()

  add(ref: string | null, chargeId: string): string | null {
    if (ref === null) return null
    const key = normalizeRef(ref)
    if (key === '') return null
    const ids = this.byKey.get(key)
    if (!ids) this.byKey.set(key, [chargeId])
    else if (!ids.includes(chargeId)) ids.push(chargeId)
    if (!this.rawOf.has(`${key}|${chargeId}`)) this.rawOf.set(`${key}|${chargeId}`, ref)
    const decorated = decoratedRef(key)
    if (decorated) {
      this.decorations.set(decorated.decoration, (this.decorations.get(decorated.decoration) ?? 0) + 1)
      const list = this.byNumber.get(decorated.number) ?? []
      if (!list.some((e) => e.chargeId === chargeId))
        list.push({ chargeId, decoration: decorated.decoration })
      this.byNumber.set(decorated.number, list)
    } else if (/^\d+$/.test(key)) {
      const list = this.plainByNumber.get(key) ?? []
      if (!list.includes(chargeId)) list.push(chargeId)
      this.plainByNumber.set(key, list)
    }
    return key
  }

  private known(decoration: string, fileDecorations: ReadonlyMap<string, number>): boolean {
    return (this.decorations.get(decoration) ?? 0) >= 2 || (fileDecorations.get(decoration) ?? 0) >= 2
  }

  /**
   * The charges a file's order number names and the rule that ties them: the same normalized key first;
   * only when there is none, the same number with a known decoration on exactly one side.
   * `fileDecorations`: how often each decoration occurs among the file's own order numbers.
   */
  lookup(fileRef: string, fileDecorations: ReadonlyMap<string, number> = new Map()): RefTie | null {
    const key = normalizeRef(fileRef)
    if (key === '') return null
    const same = this.byKey.get(key)
    if (same) {
      const rules = same.map((id) => sameKeyRule(fileRef, this.rawOf.get(`${key}|${id}`) ?? fileRef))
      const rule = rules.find((r) => r !== 'exact') ?? 'exact'
      return { key, chargeIds: same, rule }
    }
    if (/^\d+$/.test(key)) {
      const decorated = (this.byNumber.get(key) ?? []).filter((e) =>
        this.known(e.decoration, fileDecorations),
      )
      if (decorated.length === 0) return null
      const decoration = decorated[0]?.decoration ?? ''
      return {
        key,
        chargeIds: [...new Set(decorated.map((e) => e.chargeId))],
        rule: 'decoration',
        decoration,
      }
    }
    const own = decoratedRef(key)
    if (!own) return null
    // The same decoration with the number padded otherwise: ORD-4961 is ORD-0004961.
    const padded = (this.byNumber.get(own.number) ?? []).filter((e) => e.decoration === own.decoration)
    if (padded.length > 0) {
      return { key, chargeIds: [...new Set(padded.map((e) => e.chargeId))], rule: 'zero_padding' }
    }
    if (!this.known(own.decoration, fileDecorations)) return null
    const plain = this.plainByNumber.get(own.number)
    if (!plain) return null
    return { key, chargeIds: plain, rule: 'decoration', decoration: own.decoration }
  }
}

/** How often each decoration occurs among a file's order numbers (a file's own habit makes it known). */
export function decorationsOf(refs: Iterable<string | null>): Map<string, number> {
  const out = new Map<string, number>()
  for (const ref of refs) {
    if (ref === null) continue
    const decorated = decoratedRef(normalizeRef(ref))
    if (decorated) out.set(decorated.decoration, (out.get(decorated.decoration) ?? 0) + 1)
  }
  return out
}

const ORDER_KEY_RE = /order|注文|受注/i

/**
 * Every order-like reference in a charge's metadata (`shopify_order_name`, `ec_order_no`, `注文番号`…),
 * whichever key an integration chose: scalar values of keys that name an order. The cache's `orderRef`
 * keeps one of them; matching offers all, and still needs the amount to agree.
 */
export function metadataOrderRefs(raw: unknown): string[] {
  const metadata = (raw as { metadata?: unknown } | null)?.metadata
  if (metadata === null || typeof metadata !== 'object') return []
  const out: string[] = []
  for (const [key, value] of Object.entries(metadata as Record<string, unknown>)) {
    if (!ORDER_KEY_RE.test(key)) continue
    const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : ''
    if (text !== '' && text.length <= 64) out.push(text)
  }
  return out
}
