/**
 * Installers cannot be built here (no Electron binary), so the configuration is checked instead:
 * electron-builder's own schema validation, the targets each platform needs, and the fuse settings.
 */
import { createRequire } from 'node:module'
import { resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { getConfig, validateConfiguration } from 'app-builder-lib/out/util/config/config'
import { DebugLogger } from 'builder-util'

const require = createRequire(import.meta.url)
const root = resolve(__dirname, '../../..')

interface FuseModule {
  FUSES: Record<string | number, unknown>
}

async function loadConfig() {
  return getConfig(root, resolve(root, 'electron-builder.yml'), null)
}

describe('installer configuration', () => {
  it('passes electron-builder validation', async () => {
    const config = await loadConfig()
    await expect(validateConfiguration(config, new DebugLogger(false))).resolves.toBeUndefined()
  })

  it('builds dmg with hardened runtime, nsis, AppImage and deb', async () => {
    const config = await loadConfig()
    const targets = (t: unknown): string[] =>
      (Array.isArray(t) ? t : [t]).map((x: unknown) =>
        typeof x === 'string' ? x : (x as { target: string }).target,
      )
    expect(targets(config.mac?.target)).toContain('dmg')
    expect(config.mac?.hardenedRuntime).toBe(true)
    expect(config.mac?.entitlements).toBe('build/entitlements.mac.plist')
    expect(targets(config.win?.target)).toContain('nsis')
    expect(targets(config.linux?.target)).toEqual(expect.arrayContaining(['AppImage', 'deb']))
    expect(config.asar).toBe(true)
    expect(config.afterPack).toBe('build/fuses.cjs')
    // The keychain's native addon must be unpacked from the archive to load.
    expect(JSON.stringify(config.asarUnpack)).toContain('@napi-rs/keyring')
  })

  it('sets the security fuses', () => {
    const { FuseV1Options, FuseVersion } = require('@electron/fuses') as typeof import('@electron/fuses')
    const { FUSES } = require(resolve(root, 'build/fuses.cjs')) as FuseModule
    expect(FUSES['version']).toBe(FuseVersion.V1)
    expect(FUSES[FuseV1Options.RunAsNode]).toBe(false)
    expect(FUSES[FuseV1Options.EnableCookieEncryption]).toBe(true)
    expect(FUSES[FuseV1Options.EnableEmbeddedAsarIntegrityValidation]).toBe(true)
    expect(FUSES[FuseV1Options.OnlyLoadAppFromAsar]).toBe(true)
    expect(FUSES[FuseV1Options.EnableNodeOptionsEnvironmentVariable]).toBe(false)
    expect(FUSES[FuseV1Options.EnableNodeCliInspectArguments]).toBe(false)
  })

  it('ships only the built app, never sources, tests or local data', async () => {
    const config = await loadConfig()
    expect(JSON.stringify(config.files)).toBe(
      JSON.stringify([{ filter: ['out/**/*', 'package.json', '!**/*.map'] }]),
    )
  })
})
