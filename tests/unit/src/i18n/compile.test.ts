import { describe, expect, it } from 'vitest'
import { createAppI18n } from '../../../../src/i18n'
import { en } from '../../../../src/i18n/en'

/** Every leaf key of a message tree, dotted. */
function keys(tree: object, prefix = ''): string[] {
  return Object.entries(tree).flatMap(([k, v]) =>
    typeof v === 'string' ? [`${prefix}${k}`] : keys(v as object, `${prefix}${k}.`),
  )
}

describe('message syntax', () => {
  // vue-i18n reads "@", "|", "{", "}" and "$" as syntax: a bare "@" throws while the view renders
  // (the whole component disappears), so every message must compile in both languages.
  it.each(['en', 'ja'] as const)('every %s message compiles and renders', (locale) => {
    const { global } = createAppI18n(locale)
    const failures: string[] = []
    for (const key of keys(en)) {
      try {
        const text = global.t(key, { count: 2, field: 'f', message: 'm', n: 1 })
        if (text === key) failures.push(`${key}: missing`)
      } catch (e) {
        failures.push(`${key}: ${e instanceof Error ? e.message : String(e)}`)
      }
    }
    expect(failures).toEqual([])
  })
})
