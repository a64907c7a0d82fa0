import { describe, expect, it } from 'vitest'
import { DesktopApiError } from '../../../../electron/shared/errors'
import { APP_ERROR_CODES, isAppError, toAppError } from '../../../../src/platform/app-error'
import { en } from '../../../../src/i18n/en'
import { ja } from '../../../../src/i18n/ja'

describe('toAppError', () => {
  it('keeps a host error’s code, its text only as detail, and its fields', () => {
    const e = toAppError(
      new DesktopApiError('invalid_argument', 'Invalid connection: baseUrl: expected https', {
        fields: [{ path: 'baseUrl', message: 'expected https' }],
      }),
    )
    expect(e).toEqual({
      code: 'invalid_argument',
      detail: 'Invalid connection: baseUrl: expected https',
      fields: [{ path: 'baseUrl', message: 'expected https' }],
    })
    expect(isAppError(e)).toBe(true)
  })

  it('names cache failures, a full disk and a cancel by code, anything else by the caller’s fallback', () => {
    const named = (name: string): Error => Object.assign(new Error('x'), { name })
    expect(toAppError(named('DatabaseClosedError')).code).toBe('cache_failed')
    expect(toAppError(named('QuotaExceededError')).code).toBe('disk_full')
    expect(toAppError(new DOMException('stop', 'AbortError')).code).toBe('cancelled')
    expect(toAppError(new Error('boom'), 'file_unreadable')).toEqual({
      code: 'file_unreadable',
      detail: 'boom',
      fields: [],
    })
    expect(toAppError('text').code).toBe('unexpected')
  })

  it('has a message for every code, in English and in Japanese', () => {
    for (const code of APP_ERROR_CODES) {
      expect(en.errors[code], code).toMatch(/\S/)
      expect(ja.errors[code], code).toMatch(/[\u3040-\u30ff\u4e00-\u9fff]/)
    }
  })
})
