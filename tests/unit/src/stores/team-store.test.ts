import { createPinia, setActivePinia } from 'pinia'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { DesktopApi } from '../../../../electron/shared/contract'
import { DesktopApiError } from '../../../../electron/shared/errors'
import { setDesktopApiForTests } from '../../../../src/platform'
import { useTeamStore } from '../../../../src/stores/team-store'

const config = { host: 'db.firm.example', port: 5432, database: 'closebook', user: 'ana' }

function fakeTeam(calls: unknown[]): DesktopApi {
  const summary = { configured: true, config, hasPassword: true, plain: false }
  const team: Partial<DesktopApi['team']> = {
    get: () => Promise.resolve({ configured: false, config: null, hasPassword: false, plain: false }),
    configure: (args) => {
      calls.push(args)
      return Promise.resolve(summary)
    },
    test: () =>
      Promise.reject(
        new DesktopApiError('unauthorized', 'PostgreSQL refused the login ana.', { failure: 'auth_failed' }),
      ),
  }
  return { team } as unknown as DesktopApi
}

describe('team settings store', () => {
  beforeEach(() => setActivePinia(createPinia()))
  afterEach(() => setDesktopApiForTests(undefined))

  it('sends a typed password once and an empty one never (the saved one stays)', async () => {
    const calls: unknown[] = []
    setDesktopApiForTests(fakeTeam(calls))
    const store = useTeamStore()
    expect(await store.save(config, 'hunter2-long-password')).toBe(true)
    expect(await store.save(config, '')).toBe(true)
    expect(calls).toEqual([{ config, password: 'hunter2-long-password' }, { config }])
    expect(JSON.stringify(store.$state)).not.toContain('hunter2')
  })

  it('keeps a failed call as an AppError for the screen', async () => {
    setDesktopApiForTests(fakeTeam([]))
    const store = useTeamStore()
    await store.runTest()
    expect(store.test).toBeNull()
    expect(store.error).toMatchObject({ code: 'unauthorized' })
  })
})
