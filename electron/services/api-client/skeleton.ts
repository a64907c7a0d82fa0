/**
 * A text's skeleton: its ASCII letters and digits in lower case, full-width forms read as their ASCII
 * letters, percent-escapes decoded, and everything else left out. Texts that differ only in case, in what
 * stands between their characters (spaces, dashes, dots, underscores, other scripts) or in escaping have
 * the same skeleton, so a credential written `s k _ C A N A R Y` is found where `sk_canary` is looked for.
 */

const FULL_WIDTH_FIRST = 0xff01
const FULL_WIDTH_LAST = 0xff5e
const FULL_WIDTH_OFFSET = 0xfee0

function skeletonCode(code: number): number {
  if (code >= FULL_WIDTH_FIRST && code <= FULL_WIDTH_LAST) code -= FULL_WIDTH_OFFSET
  if (code >= 65 && code <= 90) return code + 32
  if ((code >= 97 && code <= 122) || (code >= 48 && code <= 57)) return code
  return -1
}

function hexValue(code: number): number {
  if (code >= 48 && code <= 57) return code - 48
  if (code >= 65 && code <= 70) return code - 55
  if (code >= 97 && code <= 102) return code - 87
  return -1
}

/** Calls `emit` for each skeleton character with the span of `text` it was read from. */
function walk(text: string, emit: (code: number, start: number, end: number) => void): void {
  for (let i = 0; i < text.length;) {
    let code = text.charCodeAt(i)
    let width = 1
    if (code === 37 && i + 2 < text.length) {
      const high = hexValue(text.charCodeAt(i + 1))
      const low = hexValue(text.charCodeAt(i + 2))
      if (high >= 0 && low >= 0) {
        code = high * 16 + low
        width = 3
      }
    }
    const c = skeletonCode(code)
    if (c >= 0) emit(c, i, i + width)
    i += width
  }
}

const ascii = new TextDecoder('latin1')

/** One pass, no call per character: a page's whole text is read this way (every skeleton code is ASCII). */
export function skeletonOf(text: string): string {
  const codes = new Uint8Array(text.length)
  let n = 0
  for (let i = 0; i < text.length; i++) {
    let code = text.charCodeAt(i)
    if (code === 37 && i + 2 < text.length) {
      const high = hexValue(text.charCodeAt(i + 1))
      const low = hexValue(text.charCodeAt(i + 2))
      if (high >= 0 && low >= 0) {
        code = high * 16 + low
        i += 2
      }
    }
    const c = skeletonCode(code)
    if (c >= 0) codes[n++] = c
  }
  return ascii.decode(codes.subarray(0, n))
}

/**
 * `text` with every stretch whose skeleton is one of `skeletons` replaced by `replacement`, from the
 * stretch's first letter or digit to its last (what stands around it is kept).
 */
export function redactSkeletonMatches(
  text: string,
  skeletons: readonly string[],
  replacement: string,
): string {
  const shortest = skeletons.reduce((min, s) => Math.min(min, s.length), Infinity)
  if (text.length < shortest) return text
  const skeleton = skeletonOf(text)
  const hits: [number, number][] = []
  for (const s of skeletons)
    for (let at = skeleton.indexOf(s); at >= 0; at = skeleton.indexOf(s, at + s.length))
      hits.push([at, at + s.length])
  if (hits.length === 0) return text
  const starts = new Int32Array(skeleton.length)
  const ends = new Int32Array(skeleton.length)
  let k = 0
  walk(text, (_code, start, end) => {
    starts[k] = start
    ends[k] = end
    k++
  })
  hits.sort((a, b) => a[0] - b[0])
  const merged: [number, number][] = []
  for (const [from, to] of hits) {
    const last = merged[merged.length - 1]
    if (last && from <= last[1]) last[1] = Math.max(last[1], to)
    else merged.push([from, to])
  }
  let out = ''
  let kept = 0
  for (const [from, to] of merged) {
    const start = starts[from] ?? 0
    out += text.slice(kept, start) + replacement
    kept = ends[to - 1] ?? text.length
  }
  return out + text.slice(kept)
}
