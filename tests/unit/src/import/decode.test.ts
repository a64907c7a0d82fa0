import Encoding from 'encoding-japanese'
import { describe, expect, it } from 'vitest'
import { decodeBytes } from '../../../../src/import/decode'

// Full-width ￥: Shift_JIS has no U+00A5 (its yen is 0x5C, decoded as "\\").
const CSV = '注文番号,日付,金額\nA-1,2026/10/01,"￥1,234"\n'

function shiftJis(text: string): Uint8Array {
  return Uint8Array.from(
    Encoding.convert(Encoding.stringToCode(text), { to: 'SJIS', from: 'UNICODE', type: 'array' }),
  )
}

describe('decodeBytes', () => {
  it('reads UTF-8 without a BOM', () => {
    expect(decodeBytes(new TextEncoder().encode(CSV))).toEqual({ text: CSV, encoding: 'utf-8' })
  })

  it('reads UTF-8 with a BOM and drops the BOM', () => {
    const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode(CSV)])
    expect(decodeBytes(bytes)).toEqual({ text: CSV, encoding: 'utf-8-bom' })
  })

  it('reads Shift_JIS produced by encoding-japanese', () => {
    const bytes = shiftJis(CSV)
    // The bytes really are not UTF-8 (注 is 0x92 0x8D in Shift_JIS).
    expect(bytes[0]).toBe(0x92)
    expect(decodeBytes(bytes)).toEqual({ text: CSV, encoding: 'shift_jis' })
  })

  it('reads Shift_JIS half-width katakana and full-width digits of bank exports', () => {
    const text = '取引日,入金額,摘要\n2026年10月1日,１２３,ﾌﾘｺﾐ ｶﾌﾞｼｷｶﾞｲｼｬ\n'
    expect(decodeBytes(shiftJis(text))).toEqual({ text, encoding: 'shift_jis' })
  })

  it('treats plain ASCII as UTF-8', () => {
    expect(decodeBytes(new TextEncoder().encode('a,b\n1,2\n')).encoding).toBe('utf-8')
  })
})
