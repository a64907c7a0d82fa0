import { describe, expect, it } from 'vitest'
import {
  CHANNELS,
  createDesktopApi,
  decodeBridgedErrors,
  type Transport,
} from '../../../../electron/shared/channels'
import { desktopApiContract, type DesktopApi } from '../../../../electron/shared/contract'
import { DesktopApiError } from '../../../../electron/shared/errors'

describe('DesktopApi contract', () => {
  it('lists every contract channel in CHANNELS, each named domain:action', () => {
    expect([...CHANNELS].sort()).toEqual(Object.keys(desktopApiContract).sort())
    for (const channel of CHANNELS) expect(channel).toMatch(/^[a-z]+:[a-zA-Z]+$/)
  })

  it('describes an argument and a result schema for every call', () => {
    for (const [channel, spec] of Object.entries(desktopApiContract)) {
      expect(typeof spec.args.safeParse, channel).toBe('function')
      expect(typeof spec.result.safeParse, channel).toBe('function')
    }
  })

  it('rejects unknown argument fields, so a typo never passes silently', () => {
    const parsed = desktopApiContract['app:info'].args.safeParse({ secret: 'x' })
    expect(parsed.success).toBe(false)
  })

  it('only allows named external links, never a URL from the renderer', () => {
    const spec = desktopApiContract['app:openExternal'].args
    expect(spec.safeParse({ target: 'docs' }).success).toBe(true)
    expect(spec.safeParse({ target: 'https://evil.example' }).success).toBe(false)
  })
})

describe('createDesktopApi', () => {
  it('routes each method to its channel and returns the value', async () => {
    const seen: string[] = []
    const transport: Transport = (channel) => {
      seen.push(channel)
      return Promise.resolve({ ok: true, value: { opened: true } })
    }
    const api = createDesktopApi(transport)
    await expect(api.app.openExternal({ target: 'docs' })).resolves.toEqual({ opened: true })
    expect(seen).toEqual(['app:openExternal'])
  })

  it('throws a DesktopApiError that keeps code, message and details', async () => {
    const api = createDesktopApi(() =>
      Promise.resolve({
        ok: false,
        error: {
          code: 'invalid_argument',
          message: 'Invalid x',
          details: { fields: [{ path: 'x', message: 'bad' }] },
        },
      }),
    )
    const error = await api.app.info({}).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(DesktopApiError)
    expect(error).toMatchObject({
      code: 'invalid_argument',
      message: 'Invalid x',
      details: { fields: [{ path: 'x' }] },
    })
  })

  it('keeps the error shape across a bridge that only preserves messages (contextBridge)', async () => {
    const bridged = createDesktopApi(
      () => Promise.resolve({ ok: false, error: { code: 'no_keychain', message: 'No keychain here.' } }),
      'bridge',
    )
    // What contextBridge does to a thrown error: a plain Error with the same message and nothing else.
    const stripped = {
      app: {
        info: (a: unknown) =>
          bridged.app
            .info(a as Record<string, never>)
            .catch((e: Error) => Promise.reject(new Error(e.message))),
        openExternal: bridged.app.openExternal,
      },
    } as unknown as DesktopApi
    const error = await decodeBridgedErrors(stripped)
      .app.info({})
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(DesktopApiError)
    expect(error).toMatchObject({ code: 'no_keychain', message: 'No keychain here.' })
  })
})

describe('file names the renderer may suggest', () => {
  it('accepts plain names, including Japanese, and refuses paths and control characters', async () => {
    const { safeFileNameSchema } = await import('../../../../electron/shared/contract/files')
    for (const ok of ['closebook-2026-10.xlsx', '締め 2026-10.csv'])
      expect(safeFileNameSchema.safeParse(ok).success, ok).toBe(true)
    for (const bad of ['../x.csv', 'a/b.csv', 'a\\b.csv', 'x\u0000.csv', '.hidden', 'C:evil', '']) {
      expect(safeFileNameSchema.safeParse(bad).success, JSON.stringify(bad)).toBe(false)
    }
  })
})
