import { createPinia, setActivePinia } from 'pinia'
import { beforeEach, describe, expect, it } from 'vitest'
import { IMPORT_LIMITS } from '../../../../src/import/limits'
import { useMatchStore } from '../../../../src/stores/match-store'

beforeEach(() => setActivePinia(createPinia()))

/** A file that says how big it is but must never be read: the size check comes first. */
function hugeFile(name: string, size: number): File {
  const unread = (): never => {
    throw new Error('the file was read')
  }
  return { name, size, arrayBuffer: unread, text: unread, stream: unread } as unknown as File
}

describe('choosing an import file', () => {
  it('refuses a file over the size limit without reading a byte of it', async () => {
    const store = useMatchStore()
    await store.chooseFile(hugeFile('orders.csv', IMPORT_LIMITS.maxCsvBytes + 1))
    expect(store.fileError).toMatchObject({ code: 'file_too_large', params: { max: 64 } })
    expect(store.pending).toBeNull()
    await store.chooseFile(hugeFile('orders.xlsx', IMPORT_LIMITS.maxXlsxBytes + 1))
    expect(store.fileError).toMatchObject({ code: 'file_too_large', params: { max: 32 } })
  })

  it('refuses bytes no encoding fits with its own code, and a good file clears the error', async () => {
    const store = useMatchStore()
    await store.chooseFile(new File([new Uint8Array([0x61, 0x0a, 0xff, 0xfe, 0xfd, 0x80])], 'x.csv'))
    expect(store.fileError?.code).toBe('unknown_encoding')
    await store.chooseFile(new File(['date,amount\n2026-10-01,100\n'], 'ok.csv'))
    expect(store.fileError).toBeNull()
    expect(store.pending?.encoding).toBe('utf-8')
  })

  it('counts a row split by an unquoted "¥1,234" as refused in the preview, with its code, line and counts', async () => {
    const store = useMatchStore()
    const text = '注文番号,注文日,合計金額\nA-1,2026/10/01,¥1,234\nA-2,2026/10/02,500\n'
    await store.chooseFile(new File([text], 'orders.csv'))
    const preview = store.previewPending()
    expect(preview?.lineCount).toBe(2)
    expect(preview?.rows.map((r) => [r.line, r.amount])).toEqual([[3, 500]])
    expect(preview?.errors).toEqual([
      {
        row: 2,
        column: '',
        code: 'row_width',
        params: { line: 2, expected: 3, found: 4 },
        message: 'line 2 has 4 cells, the header has 3',
      },
    ])
  })
})
