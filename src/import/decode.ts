/**
 * Text of an imported file. Japanese banks and order systems still export Shift_JIS (CP932), some EUC-JP,
 * Windows tools UTF-16; everyone else UTF-8 with or without a BOM. The bytes say which, so the accountant
 * never picks an encoding. The decision is made over the whole file, never a prefix: an ASCII header says
 * nothing, and the first non-ASCII byte can be megabytes in.
 */
import { ImportFileError } from './limits'

export type DetectedEncoding = 'utf-8' | 'utf-8-bom' | 'utf-16le' | 'utf-16be' | 'shift_jis' | 'euc-jp'

export interface DecodedText {
  text: string
  encoding: DetectedEncoding
}

type Candidate = 'utf-8' | 'shift_jis' | 'euc-jp'

function decodeStrict(bytes: Uint8Array, label: string): string | null {
  try {
    // fatal: one invalid sequence anywhere in the file rules the encoding out.
    return new TextDecoder(label, { fatal: true, ignoreBOM: true }).decode(bytes)
  } catch {
    return null
  }
}

/** Whether the file has a UTF-8 sequence of three or more bytes: Japanese or symbols written as UTF-8. */
function hasLongUtf8Sequence(bytes: Uint8Array): boolean {
  for (const b of bytes) if (b >= 0xe0) return true
  return false
}

const isAsciiLetter = (c: number): boolean => (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a)
/** Latin letters that two UTF-8 bytes can write (À–ɏ), without × and ÷. */
const isLatinLetter = (c: number): boolean => c >= 0xc0 && c <= 0x24f && c !== 0xd7 && c !== 0xf7
const isHalfWidthKana = (c: number): boolean => c >= 0xff61 && c <= 0xff9f

/**
 * Points for a run of Latin letters (`café`, `ýİ`) starting at `from`, and where the run ends. Accented
 * letters are written inside words with plain ASCII letters (`café`, `Müller`); a "word" of accented
 * letters only (`ý`, `ýý`) is what Shift_JIS half-width kana pairs look like when read as UTF-8.
 */
function latinWord(text: string, from: number): { score: number; end: number } {
  let start = from
  while (start > 0 && isAsciiLetter(text.charCodeAt(start - 1))) start--
  let end = from
  let accented = 0
  let ascii = start < from
  for (; end < text.length; end++) {
    const c = text.charCodeAt(end)
    if (isLatinLetter(c)) accented++
    else if (isAsciiLetter(c)) ascii = true
    else break
  }
  return { score: ascii ? accented * 3 : 0, end }
}

/**
 * How much a decoding looks like what these files hold (Japanese, Latin text, amounts), character by
 * character; ASCII is the same in every candidate and counts nothing. Tuned so that the ambiguous cases
 * go the likely way: Shift_JIS half-width kana that is also valid UTF-8 (`ﾃｽ` reads as `ý`, `ﾃｽﾄｰ` as
 * `ýİ`) is Shift_JIS; UTF-8 `café` (also valid Shift_JIS, as `cafﾃｩ`) and `¥1,234` (`ﾂ･1,234`) stay
 * UTF-8; EUC-JP kana (valid Shift_JIS as half-width kana pairs) is EUC-JP.
 */
function plausibility(text: string): number {
  let score = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c < 0x80) continue
    if (isLatinLetter(c)) {
      const word = latinWord(text, i)
      score += word.score
      i = word.end - 1
    } else if ((c >= 0x3041 && c <= 0x30ff) || c === 0x30fc)
      score += 4 // hiragana, katakana
    else if (c >= 0x4e00 && c <= 0x9fff)
      score += 2.5 // kanji
    else if ((c >= 0x3000 && c <= 0x303f) || (c >= 0xff01 && c <= 0xff60) || c === 0xffe5) score += 2
    else if (isHalfWidthKana(c)) {
      // Bank exports write kana between spaces, digits and punctuation; next to a Latin letter it is
      // more likely the second half of an accented letter read as Shift_JIS (`cafﾃｩ`).
      const touchesLetter = isAsciiLetter(text.charCodeAt(i - 1)) || isAsciiLetter(text.charCodeAt(i + 1))
      score += touchesLetter ? 0.5 : 1.5
    } else if (c === 0xa5 || c === 0xa3)
      score += 4 // ¥ and £ before amounts
    else if (c >= 0xa0 && c <= 0xff)
      score += 2.5 // Latin-1 signs: °, ±, ×, ©
    else if ((c >= 0x2010 && c <= 0x2027) || c === 0x20ac || c === 0x2212)
      score += 2 // dashes, quotes, €
    else if (c < 0xa0 || (c >= 0xe000 && c <= 0xf8ff) || c === 0xfffd) score -= 4 // C1, private use
  }
  return score
}

const PREFERENCE: readonly Candidate[] = ['utf-8', 'shift_jis', 'euc-jp']

/** UTF-16 without a BOM: one byte of each pair is NUL in most text (ASCII digits and separators). */
function utf16WithoutBom(bytes: Uint8Array): 'utf-16le' | 'utf-16be' | null {
  if (bytes.length < 4 || bytes.length % 2 !== 0) return null
  let evenZero = 0
  let oddZero = 0
  const n = Math.min(bytes.length, 1 << 20)
  for (let i = 0; i < n; i += 2) {
    if (bytes[i] === 0) evenZero++
    if (bytes[i + 1] === 0) oddZero++
  }
  const pairs = n / 2
  if (oddZero > pairs * 0.3 && evenZero === 0) return 'utf-16le'
  if (evenZero > pairs * 0.3 && oddZero === 0) return 'utf-16be'
  return null
}

/** Decodes a whole file; throws ImportFileError('unknown_encoding') when no supported encoding fits it. */
export function decodeBytes(bytes: Uint8Array): DecodedText {
  if (bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
    const text = decodeStrict(bytes.subarray(3), 'utf-8')
    if (text === null) throw new ImportFileError('unknown_encoding', { encoding: 'UTF-8' })
    return { text, encoding: 'utf-8-bom' }
  }
  const bomUtf16 =
    bytes.length >= 2 && bytes[0] === 0xff && bytes[1] === 0xfe
      ? 'utf-16le'
      : bytes.length >= 2 && bytes[0] === 0xfe && bytes[1] === 0xff
        ? 'utf-16be'
        : null
  const utf16 = bomUtf16 ?? utf16WithoutBom(bytes)
  if (utf16) {
    const text = decodeStrict(bomUtf16 ? bytes.subarray(2) : bytes, utf16)
    if (text === null) throw new ImportFileError('unknown_encoding', { encoding: utf16.toUpperCase() })
    return { text, encoding: utf16 }
  }

  const utf8 = decodeStrict(bytes, 'utf-8')
  // Valid UTF-8 with a 3-byte sequence is UTF-8: Shift_JIS and EUC-JP text almost never is. Without one,
  // only 2-byte sequences are in play, and those are exactly what half-width kana can imitate.
  if (utf8 !== null && hasLongUtf8Sequence(bytes)) return { text: utf8, encoding: 'utf-8' }
  if (utf8 !== null && !bytes.some((b) => b >= 0x80)) return { text: utf8, encoding: 'utf-8' }

  const decoded = new Map<Candidate, string>()
  if (utf8 !== null) decoded.set('utf-8', utf8)
  for (const label of ['shift_jis', 'euc-jp'] as const) {
    const text = decodeStrict(bytes, label)
    if (text !== null) decoded.set(label, text)
  }
  let best: { encoding: Candidate; text: string; score: number } | null = null
  for (const encoding of PREFERENCE) {
    const text = decoded.get(encoding)
    if (text === undefined) continue
    const score = plausibility(text)
    if (!best || score > best.score) best = { encoding, text, score }
  }
  if (!best) throw new ImportFileError('unknown_encoding', { encoding: '' })
  return { text: best.text, encoding: best.encoding }
}
