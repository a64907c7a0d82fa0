/**
 * Shift_JIS (CP932) output for files Japanese accounting software imports (Yayoi, Money Forward).
 * One function shared by the renderer (checks before a file is begun) and main (writes the bytes), so a
 * character that has no Shift_JIS form is refused with its name, never written as "?".
 */
import Encoding from 'encoding-japanese'

export class NotShiftJisError extends Error {
  constructor(readonly character: string) {
    super(
      `"${character}" (U+${(character.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}) cannot be written in Shift_JIS`,
    )
    this.name = 'NotShiftJisError'
  }
}

export function encodeShiftJis(text: string): Uint8Array {
  try {
    return Uint8Array.from(
      Encoding.convert(Encoding.stringToCode(text), { to: 'SJIS', from: 'UNICODE', fallback: 'error' }),
    )
  } catch {
    throw new NotShiftJisError(firstUnencodable(text) ?? '?')
  }
}

/** The first character of `text` that Shift_JIS cannot hold, if any. */
export function firstUnencodable(text: string): string | undefined {
  for (const ch of text) {
    try {
      Encoding.convert(Encoding.stringToCode(ch), { to: 'SJIS', from: 'UNICODE', fallback: 'error' })
    } catch {
      return ch
    }
  }
  return undefined
}

/** Bytes of `text` in Shift_JIS (Yayoi's field limits are in half-width bytes). */
export function shiftJisLength(text: string): number {
  return encodeShiftJis(text).length
}
