/**
 * How deeply a JSON text nests, found without parsing it. JSON.parse copes with any depth, but everything
 * after it that walks the value recursively (zod, scrubbing, structured clone, Dexie) overflows the stack
 * on, say, metadata nested 200,000 levels deep — and a retry meets the same page again. So texts nested
 * deeper than a bound are refused before parsing, with a specific error. Pure TS: used by main and web host.
 */

/** Real pages nest a handful of levels (list → items → user_data → refunds → item → metadata). */
export const MAX_JSON_DEPTH = 64

/** true when `text` opens more than `max` arrays/objects inside one another (strings are skipped). */
export function jsonNestsDeeperThan(text: string, max: number = MAX_JSON_DEPTH): boolean {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 0x5c /* \ */) i++
      else if (c === 0x22 /* " */) inString = false
    } else if (c === 0x22) inString = true
    else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (++depth > max) return true
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) depth--
  }
  return false
}
