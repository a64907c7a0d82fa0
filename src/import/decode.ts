/**
 * Text of an imported file. Japanese banks and order systems still export Shift_JIS (CP932), everyone
 * else UTF-8 with or without a BOM; the bytes say which, so the accountant never picks an encoding.
 */
import Encoding from 'encoding-japanese'

export type DetectedEncoding = 'utf-8' | 'utf-8-bom' | 'shift_jis'

export interface DecodedText {
  text: string
  encoding: DetectedEncoding
}

export function decodeBytes(bytes: Uint8Array): DecodedText {
  if (bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
    return { text: new TextDecoder('utf-8').decode(bytes.subarray(3)), encoding: 'utf-8-bom' }
  }
  try {
    // fatal: any invalid sequence throws, which is how Shift_JIS bytes are told apart from UTF-8.
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(bytes), encoding: 'utf-8' }
  } catch {
    // Not UTF-8: Japanese exports are then Shift_JIS (encoding-japanese maps the CP932 extensions too).
    const text = Encoding.convert(bytes, { to: 'UNICODE', from: 'SJIS', type: 'string' })
    return { text, encoding: 'shift_jis' }
  }
}
