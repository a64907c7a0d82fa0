import { describe, expect, it } from 'vitest'
import { fileNameProblem, toSafeFileNamePart } from '../../../../electron/shared/file-name'
import { workbookFileName } from '../../../../src/export/month-workbook'

describe('names the renderer builds from text the user chose', () => {
  it.each(['Shop\u202Etxt.exe', 'CON', 'a\u007Fb', '..', 'x/y\\z', ' \u200B ', '東京店\u2066'])(
    'a workbook for the store %j gets a name the rule accepts',
    (label) => {
      const name = workbookFileName(label, '2026-10')
      expect(fileNameProblem(name, ['.xlsx']), name).toBeNull()
    },
  )

  it('cuts a long label between characters, never inside an emoji', () => {
    const label = `${'a'.repeat(59)}😀tail`
    const name = workbookFileName(label, '2026-10')
    expect(fileNameProblem(name, ['.xlsx']), name).toBeNull()
    expect(name).toBe(`closebook-${'a'.repeat(59)}😀-2026-10.xlsx`)
  })

  it('keeps readable labels readable', () => {
    expect(workbookFileName('Tokyo Store', '2026-10')).toBe('closebook-Tokyo-Store-2026-10.xlsx')
    expect(toSafeFileNamePart('東京店\u202E')).toBe('東京店')
  })
})
