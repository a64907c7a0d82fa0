import Encoding from 'encoding-japanese'
import { describe, expect, it } from 'vitest'
import { decodeBytes } from '../../../../src/import/decode'
import { ImportFileError } from '../../../../src/import/limits'

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

function eucJp(text: string): Uint8Array {
  return Uint8Array.from(
    Encoding.convert(Encoding.stringToCode(text), { to: 'EUCJP', from: 'UNICODE', type: 'array' }),
  )
}

describe('decodeBytes over the whole file', () => {
  it('reads UTF-16 LE and BE with a BOM, and UTF-16 LE without one', () => {
    const le = Buffer.from(`\uFEFF${CSV}`, 'utf16le')
    expect(decodeBytes(new Uint8Array(le))).toEqual({ text: CSV, encoding: 'utf-16le' })
    const be = Buffer.from(le).swap16()
    expect(decodeBytes(new Uint8Array(be))).toEqual({ text: CSV, encoding: 'utf-16be' })
    const noBom = Buffer.from(CSV, 'utf16le')
    expect(decodeBytes(new Uint8Array(noBom))).toEqual({ text: CSV, encoding: 'utf-16le' })
  })

  it('reads Shift_JIS half-width kana that is also valid UTF-8 as Shift_JIS (ASCII header)', () => {
    // ﾃｽﾄｰ is C3 BD C4 B0: as UTF-8 that is "ýİ", so a fatal UTF-8 decoder alone accepts it.
    const text = 'date,amount,memo\n2026-10-01,1200,ﾃｽﾄｰ\n'
    const bytes = shiftJis(text)
    expect(new TextDecoder('utf-8', { fatal: true }).decode(bytes)).toContain('ý')
    expect(decodeBytes(bytes)).toEqual({ text, encoding: 'shift_jis' })
  })

  it.each([
    'id,memo\n1,ﾃｽ\n',
    'date,amount,memo\n2026-10-01,1200,ﾃｽ\n2026-10-02,800,ﾃｽﾃｽ ﾃｽ\n',
    'a,b\nﾃｽ,ﾃｽ\n',
  ])('reads two-kana Shift_JIS that is also valid UTF-8 ("ý") as Shift_JIS: %j', (text) => {
    const bytes = shiftJis(text)
    expect(new TextDecoder('utf-8', { fatal: true }).decode(bytes)).toContain('ý')
    expect(decodeBytes(bytes)).toEqual({ text, encoding: 'shift_jis' })
  })

  it.each([
    'order,amount\nA-1,"¥1,234"\n',
    'order,amount\nA-1,¥500\n',
    'name,temp\nZoë,25°C\n',
    'city,amount\nSão Paulo,£12\n',
  ])('keeps UTF-8 that Shift_JIS could also read (as kana) as UTF-8: %j', (text) => {
    const bytes = new TextEncoder().encode(text)
    expect(new TextDecoder('shift_jis', { fatal: true }).decode(bytes)).not.toBe(text)
    expect(decodeBytes(bytes)).toEqual({ text, encoding: 'utf-8' })
  })

  it('decides from the whole file: Shift_JIS whose first non-ASCII byte is 2 MB in', () => {
    const text = `${'id,amount\n'}${'A-1,100\n'.repeat(262_144)}B-2,200,ﾌﾘｺﾐ 山田\n`
    expect(decodeBytes(shiftJis(text))).toEqual({ text, encoding: 'shift_jis' })
    // A UTF-8 file whose only multi-byte text is at the end stays UTF-8.
    const utf8 = `${'A-1,100\n'.repeat(262_144)}B-2,200,café\n`
    expect(decodeBytes(new TextEncoder().encode(utf8))).toEqual({ text: utf8, encoding: 'utf-8' })
  })

  it('reads EUC-JP, and keeps UTF-8 Latin text (valid Shift_JIS too) as UTF-8', () => {
    const text = '取引日,金額,摘要\n2026-10-01,1200,テスト振込 ｶﾌﾞｼｷ\n'
    expect(decodeBytes(eucJp(text))).toEqual({ text, encoding: 'euc-jp' })
    const latin = 'name,amount\nCafé Müller,12\n'
    expect(decodeBytes(new TextEncoder().encode(latin))).toEqual({ text: latin, encoding: 'utf-8' })
  })

  it('refuses bytes no supported encoding can read, with a specific error', () => {
    const bytes = new Uint8Array([0x61, 0x2c, 0x62, 0x0a, 0xff, 0xff, 0xfd, 0x80, 0x0a])
    expect(() => decodeBytes(bytes)).toThrow(ImportFileError)
    expect(() => decodeBytes(bytes)).toThrow(/unknown_encoding/)
  })
})
