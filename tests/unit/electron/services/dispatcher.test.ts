import { describe, expect, it } from 'vitest'
import { dispatch } from '../../../../electron/services/dispatcher'
import type { CallContext, Handlers } from '../../../../electron/services/handlers/types'
import { handlersWith } from '../support/handlers'
import { DesktopApiError } from '../../../../electron/shared/errors'

const ctx: CallContext = { host: 'web', signal: new AbortController().signal }

function handlers(overrides: Partial<Handlers> = {}): Handlers {
  return handlersWith({
    'app:info': () =>
      Promise.resolve({
        name: 'Closebook',
        version: '1.0.0',
        host: 'web',
        platform: 'linux',
        keychain: { available: true },
      }),
    'app:openExternal': () => Promise.resolve({ opened: true }),
    ...overrides,
  })
}

describe('dispatch', () => {
  it('runs the handler with parsed arguments and returns its checked value', async () => {
    const outcome = await dispatch(handlers(), 'app:info', {}, ctx)
    expect(outcome).toEqual({
      ok: true,
      value: {
        name: 'Closebook',
        version: '1.0.0',
        host: 'web',
        platform: 'linux',
        keychain: { available: true },
      },
    })
  })

  it('refuses an unknown call', async () => {
    const outcome = await dispatch(handlers(), 'app:shell', {}, ctx)
    expect(outcome).toMatchObject({ ok: false, error: { code: 'unknown_call' } })
  })

  it('refuses invalid arguments before the handler runs, naming the field', async () => {
    let ran = false
    const outcome = await dispatch(
      handlers({ 'app:openExternal': () => ((ran = true), Promise.resolve({ opened: true })) }),
      'app:openExternal',
      { target: 'file:///etc/passwd' },
      ctx,
    )
    expect(ran).toBe(false)
    expect(outcome).toMatchObject({
      ok: false,
      error: { code: 'invalid_argument', details: { fields: [{ path: 'target' }] } },
    })
    if (!outcome.ok) expect(outcome.error.message).toContain('target')
  })

  it('passes DesktopApiErrors through with their code', async () => {
    const outcome = await dispatch(
      handlers({ 'app:info': () => Promise.reject(new DesktopApiError('no_keychain', 'No keychain.')) }),
      'app:info',
      {},
      ctx,
    )
    expect(outcome).toEqual({ ok: false, error: { code: 'no_keychain', message: 'No keychain.' } })
  })

  it('never forwards the message of an unexpected error (it could hold a secret)', async () => {
    const logged: string[] = []
    const outcome = await dispatch(
      handlers({ 'app:info': () => Promise.reject(new Error('GET https://x/?secret=CANARY-123 failed')) }),
      'app:info',
      {},
      ctx,
      { error: (m) => logged.push(m) },
    )
    expect(outcome).toMatchObject({ ok: false, error: { code: 'internal' } })
    expect(JSON.stringify(outcome)).not.toContain('CANARY')
    expect(logged.join('\n')).not.toContain('CANARY')
  })

  it('refuses a result that breaks the contract', async () => {
    const outcome = await dispatch(
      handlers({ 'app:info': () => Promise.resolve({ name: 'x' } as never) }),
      'app:info',
      {},
      ctx,
    )
    expect(outcome).toMatchObject({ ok: false, error: { code: 'internal' } })
  })
})

describe('a refused file name', () => {
  it.each([
    ['files:begin', { suggestedName: 'invoice\u202Evsc.exe.csv', mediaType: 'text/csv' }],
    ['files:begin', { suggestedName: 'ledger.html', mediaType: 'text/csv' }],
    ['export:begin', { suggestedName: 'CON.xlsx', sheets: [] }],
  ])('%s names its reason, so the renderer can say it in the display language', async (channel, args) => {
    let called = false
    const outcome = await dispatch(
      handlers({
        'files:begin': () => {
          called = true
          return Promise.resolve({ fileId: 'x'.repeat(24) })
        },
      }),
      channel,
      args,
      ctx,
    )
    expect(called).toBe(false)
    expect(outcome).toMatchObject({
      ok: false,
      error: {
        code: 'invalid_argument',
        details: {
          reason: 'unsafe_file_name',
          fields: expect.arrayContaining([
            { path: 'suggestedName', message: expect.any(String) as unknown },
          ]) as unknown,
        },
      },
    })
  })
})
