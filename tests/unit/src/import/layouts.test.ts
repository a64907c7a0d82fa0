import Encoding from 'encoding-japanese'
import { describe, expect, it } from 'vitest'
import { BUILT_IN_LAYOUTS, detectLayout, layoutColumnsFor } from '../../../../src/import/layouts'
import { parseCsv } from '../../../../src/import/parse'
import { applyProfile, type MappingProfile } from '../../../../src/import/profiles'
import { builtInProfileFor, readImportFile } from '../../../../src/import/read-file'

const TOKYO = 'Asia/Tokyo'

function sjis(text: string): Uint8Array {
  return Uint8Array.from(
    Encoding.convert(Encoding.stringToCode(text), { to: 'SJIS', from: 'UNICODE', type: 'array' }),
  )
}

/** Reads a file as the app does and applies the built-in layout its headers name. */
async function read(name: string, bytes: Uint8Array) {
  const file = await readImportFile(name, bytes)
  const profile = builtInProfileFor(file.parsed.headers, TOKYO) as MappingProfile
  expect(profile, `${name}: no layout for ${file.parsed.headers.join(',')}`).not.toBeNull()
  return { profile, applied: applyProfile(file.parsed, profile), encoding: file.encoding }
}

describe('built-in layouts follow the published exports', () => {
  it('cites a source for every layout', async () => {
    const { readFile } = await import('node:fs/promises')
    const text = await readFile(new URL('../../../../src/import/layouts.ts', import.meta.url), 'utf8')
    for (const layout of BUILT_IN_LAYOUTS) {
      const at = text.indexOf(`id: '${layout.id}'`)
      const comment = text.slice(text.lastIndexOf('{', at), at)
      expect(comment, layout.id).toMatch(/Source|zengin\.ts/)
    }
  })

  it('reads Rakuten personal and business statements (two header wordings)', async () => {
    const personal = await read(
      'p.csv',
      sjis(
        '取引日,入出金(円),取引後残高(円),入出金内容\r\n20261105,12000,112000,ﾌﾘｺﾐ\r\n20261106,-4100,107900,ｼｲﾚ\r\n',
      ),
    )
    expect(personal.encoding).toBe('shift_jis')
    expect(personal.profile.id).toBe('builtin:rakuten')
    const business = await read(
      'b.csv',
      sjis(
        '取引日,入出金(円),残高(円),入出金先内容\r\n20261105,"12,000","112,000",ﾌﾘｺﾐ ﾕﾆｳﾞｧﾍﾟｲ\r\n20261106,"-4,100","107,900",ｼｲﾚ\r\n',
      ),
    )
    expect(business.profile.columns.description).toBe('入出金先内容')
    for (const { applied } of [personal, business]) {
      expect(applied.errors).toEqual([])
      expect(applied.rows.map((r) => [r.day, r.amount])).toEqual([
        ['2026-11-05', 12000],
        ['2026-11-06', -4100],
      ])
    }
  })

  it('reads SMBC in its current and older wording, negative withdrawals signed once', async () => {
    const current = await read(
      's.csv',
      sjis(
        '年月日,お引出し,お預入れ,お取り扱い内容,残高,メモ,ラベル\r\n2026/11/5,,"12,000",振込,1,"",\r\n2026/11/6,"4,100",,ｼｲﾚ,1,"",\r\n',
      ),
    )
    const legacy = await read(
      'l.csv',
      sjis(
        '年月日,お引出し金額,お預入れ金額,お取り扱い内容,残高,メモ\r\n2026/11/5,,12000,振込,1,\r\n2026/11/6,-4100,,ｼｲﾚ,1,\r\n',
      ),
    )
    expect(legacy.profile.columns).toMatchObject({ amount: 'お預入れ金額', withdrawal: 'お引出し金額' })
    for (const { applied, profile } of [current, legacy]) {
      expect(profile.id).toBe('builtin:smbc')
      expect(applied.errors).toEqual([])
      expect(applied.rows.map((r) => r.amount)).toEqual([12000, -4100])
    }
  })

  it('detects layouts whatever the column order, width of the header text or spacing', () => {
    const shuffled = ['残高(円)', ' 入出金（円） ', '入出金先内容', '取引日']
    const layout = detectLayout(shuffled)
    expect(layout?.id).toBe('builtin:rakuten')
    expect(layoutColumnsFor(layout!, shuffled)).toEqual({
      date: '取引日',
      amount: ' 入出金（円） ',
      description: '入出金先内容',
    })
    const applied = applyProfile(
      parseCsv(`${shuffled.join(',')}\n"１２，０００",１２０００,ﾌﾘｺﾐ,２０２６１１０５\n`),
      builtInProfileFor(shuffled, TOKYO) as MappingProfile,
    )
    expect(applied.errors).toEqual([])
    expect(applied.rows.map((r) => [r.day, r.amount])).toEqual([['2026-11-05', 12000]])
  })

  it('reads the BASE order CSV with its published header (支払い方法, 氏(請求先))', async () => {
    const header =
      '注文ID,注文日時,氏(請求先),名(請求先),備考,商品名,バリエーション,価格,税率,数量,合計金額,送料,支払い方法,代引き手数料'
    const { profile, applied } = await read(
      'base.csv',
      sjis(
        `${header}\r\nA1,2026-11-05 10:30:00,山田,花子,,商品0,,1000,10%,1,2200,0,クレジットカード決済,0\r\nA1,2026-11-05 10:30:00,山田,花子,,商品1,,1200,10%,1,2200,0,クレジットカード決済,0\r\n`,
      ),
    )
    expect(profile.id).toBe('builtin:base')
    expect(profile.columns).toMatchObject({ paymentMethod: '支払い方法', customer: '氏(請求先)' })
    expect(applied.errors).toEqual([])
    expect(applied.rows.map((r) => [r.orderNumber, r.amount, r.paymentMethod, r.customer, r.lines])).toEqual([
      ['A1', 2200, 'クレジットカード決済', '山田', [2, 3]],
    ])
  })

  it('reads the EC-CUBE 4 受注CSV with the columns EC-CUBE defines (支払方法(名称), 明細区分(名称))', async () => {
    const header =
      '注文ID,注文番号,お名前(姓),送料,支払合計,支払方法(ID),支払方法(名称),受注日,商品名,価格,個数,明細区分(ID),明細区分(名称),送料'
    const { profile, applied } = await read(
      'ec.csv',
      sjis(
        `${header}\r\n1,0004900,佐藤,800,3300,5,クレジットカード決済,2026-11-05 09:15:00,商品A,2500,1,1,商品,800\r\n1,0004900,佐藤,800,3300,5,クレジットカード決済,2026-11-05 09:15:00,送料,800,1,2,送料,800\r\n`,
      ),
    )
    expect(profile.id).toBe('builtin:eccube4')
    expect(profile.columns.paymentMethod).toBe('支払方法(名称)')
    expect(applied.errors).toEqual([])
    expect(applied.rows.map((r) => [r.orderNumber, r.day, r.amount, r.paymentMethod])).toEqual([
      ['0004900', '2026-11-05', 3300, 'クレジットカード決済'],
    ])
  })
})

describe('Zengin 入出金取引明細 in its CSV form', () => {
  it('reads comma-separated records (quoted or not, 和暦 or Western dates) as the fixed-width ones', async () => {
    const text = [
      '"1","03","0","081201","081101","081130","0001","ｾﾞﾝｷﾞﾝ"',
      '"2","1","081105","081105","1","11","000000012000","0","","","","","","","ﾕﾆｳﾞｧﾍﾟｲ(ｶ","ｷﾞﾝｺｳ","ｼﾃﾝ","ﾌﾘｺﾐ",""',
      '2,2,20261106,20261106,2,11,4100,0,,,,,,,ﾏﾙｲﾁ,,,ｼｲﾚ,',
      '8,0,0,0,0,0',
      '9',
    ].join('\r\n')
    const { profile, applied } = await read('meisai.csv', sjis(text))
    expect(profile.id).toBe('builtin:zengin')
    expect(applied.errors).toEqual([])
    expect(applied.rows.map((r) => [r.line, r.day, r.amount, r.customer])).toEqual([
      [2, '2026-11-05', 12000, 'ﾕﾆｳﾞｧﾍﾟｲ(ｶ'],
      [3, '2026-11-06', -4100, 'ﾏﾙｲﾁ'],
    ])
  })
})

describe("a Shopify export's other order numbers", () => {
  it('reads Id and Payment Reference beside the order name, and leaves them out when absent', async () => {
    const { readFile } = await import('node:fs/promises')
    const bytes = await readFile(
      new URL('../../../fixtures/order-files/shopify-integration-prefix.csv', import.meta.url),
    )
    const { applied } = await read('orders_export.csv', new Uint8Array(bytes))
    expect(applied.rows[0]).toMatchObject({
      orderNumber: '#1001',
      otherRefs: [
        { via: 'orderId', ref: '5000000000' },
        { via: 'paymentReference', ref: 'c963085798.1' },
      ],
    })
    const slim = [
      'Name,Financial Status,Total,Created at,Lineitem name,Currency',
      '#1,paid,1000,2026-10-03 11:00:00 +0900,Tee,JPY',
    ].join('\n')
    const { applied: without } = await read('slim.csv', new TextEncoder().encode(slim))
    expect(without.errors).toEqual([])
    expect(without.rows[0]?.otherRefs).toBeUndefined()
  })
})
