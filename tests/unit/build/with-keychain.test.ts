/**
 * scripts/with-keychain.sh, which runs the unit and end-to-end tests and the benchmarks: every run gets an
 * empty GNOME Keyring of its own, in a directory removed when the run ends, so no run sees, grows or races
 * another's keyring file. And against that real keychain, locked with its unlock prompt never answered
 * (a prompter on the bus that never replies), a save fails with `keychain_timeout` within its bound.
 * Skips with its reason where D-Bus or GNOME Keyring is missing, unless CLOSEBOOK_REQUIRE_KEYCHAIN=1.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'

const SCRIPT = resolve('scripts/with-keychain.sh')
const KEYRING = resolve('node_modules/@napi-rs/keyring')
const TSX = resolve('node_modules/.bin/tsx')
const STORE = resolve('electron/services/vault/keyring-secret-store.ts')
/** Debian's Python, where python3-dbus lives (a pyenv or venv python3 may not have it). */
const PYTHON = '/usr/bin/python3'

const has = (tool: string): boolean => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0
const missing = ['dbus-run-session', 'gnome-keyring-daemon', 'dbus-send'].filter((t) => !has(t))
const required = process.env['CLOSEBOOK_REQUIRE_KEYCHAIN'] === '1'
const skipReason = missing.length > 0 ? `${missing.join(', ')} not installed` : null
if (skipReason) console.log(`with-keychain tests skipped: ${skipReason}`)
const noPrompter =
  spawnSync(PYTHON, ['-c', 'import dbus'], { stdio: 'ignore' }).status === 0
    ? null
    : `${PYTHON} with python3-dbus is not installed (scripts/install-system-deps.sh installs it)`
if (!skipReason && noPrompter) console.log(`never-answering keychain test skipped: ${noPrompter}`)

const work = mkdtempSync(join(tmpdir(), 'closebook-with-keychain-'))
afterAll(() => rmSync(work, { recursive: true, force: true }))

/** Runs `bash with-keychain.sh bash -c <shell>` in a clean environment: no desktop session to reuse. */
function withKeychain(shell: string, env: Record<string, string> = {}): string {
  const base = { ...process.env, ...env }
  delete base['DBUS_SESSION_BUS_ADDRESS']
  delete base['GNOME_KEYRING_CONTROL']
  delete base['CLOSEBOOK_KEYRING_DIR']
  return execFileSync('bash', [SCRIPT, 'bash', '-c', shell], {
    env: base,
    encoding: 'utf8',
    timeout: 120_000,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
}

it('has D-Bus and GNOME Keyring where CLOSEBOOK_REQUIRE_KEYCHAIN=1 (CI) asks for them', () => {
  if (required) expect(skipReason).toBeNull()
})

describe.skipIf(skipReason !== null)('with-keychain.sh', () => {
  it('gives each run an empty keyring in a directory of its own, removed when the run ends', () => {
    const probe = join(work, 'fresh.cjs')
    writeFileSync(
      probe,
      `const { AsyncEntry } = require(${JSON.stringify(KEYRING)})
const { existsSync } = require('node:fs')
const entry = new AsyncEntry('closebook-test-fresh', 'left-by-a-run')
;(async () => {
  const found = (await entry.getPassword()) ?? null
  await entry.setPassword('written by this run')
  const dir = process.env.CLOSEBOOK_KEYRING_DIR
  process.stdout.write(JSON.stringify({ dir, found, file: existsSync(dir + '/data/keyrings/login.keyring'),
    readBack: await entry.getPassword(), xdg: process.env.XDG_DATA_HOME ?? null }))
})()`,
    )
    const runs = [0, 1].map(
      () => JSON.parse(withKeychain(`exec node ${JSON.stringify(probe)}`, {})) as Record<string, unknown>,
    )
    for (const run of runs) {
      // Nothing from the earlier run: the item it wrote is not there.
      expect(run['found']).toBeNull()
      expect(run['readBack']).toBe('written by this run')
      // The keyring file is in the run's own directory, and the command keeps the caller's XDG_DATA_HOME.
      expect(run['dir']).toMatch(/closebook-keyring\.[A-Za-z0-9]+$/)
      expect(run['file']).toBe(true)
      expect(run['xdg']).toBe(process.env['XDG_DATA_HOME'] ?? null)
      expect(existsSync(run['dir'] as string), 'removed when the run ended').toBe(false)
    }
    expect(runs[0]!['dir']).not.toBe(runs[1]!['dir'])
  })

  it('passes the command’s exit status on', () => {
    const result = spawnSync('bash', [SCRIPT, 'bash', '-c', 'exit 7'], {
      env: { ...process.env, DBUS_SESSION_BUS_ADDRESS: '' },
      timeout: 15_000,
    })
    expect(String(result.stderr)).toBe('')
    expect(result.status).toBe(7)
  })

  it.skipIf(noPrompter !== null)(
    'a save to a locked keychain whose prompt is never answered fails with keychain_timeout within the bound',
    () => {
      const bound = 1_500
      const prompter = join(work, 'prompter.py')
      // Owns the prompter's name and never replies: an unlock dialog nobody answers.
      writeFileSync(
        prompter,
        `import dbus, sys, time
bus = dbus.SessionBus()
bus.request_name('org.gnome.keyring.SystemPrompter')
print('owned', flush=True)
time.sleep(120)
`,
      )
      const save = join(work, 'save.ts')
      writeFileSync(
        save,
        `import { KeyringSecretStore } from ${JSON.stringify(STORE)}
const store = new KeyringSecretStore('closebook-test-hung', { timeoutMs: ${bound} })
const started = Date.now()
store.set('connection:hung', 'sk_live_never_in_an_error').then(
  () => finish({ saved: true }),
  (e: { code?: string; message?: string }) => finish({ code: e.code, message: e.message }),
)
function finish(outcome: object): void {
  // The prompt ends when its prompter goes: the native call returns and the process can exit.
  process.kill(Number(process.env.PROMPTER_PID))
  process.stdout.write(JSON.stringify({ ...outcome, ms: Date.now() - started }))
}`,
      )
      const out = withKeychain(
        [
          // The first write creates the login collection; then it is locked, as after a screen lock.
          `node -e "new (require(${JSON.stringify(KEYRING).replace(/"/g, '\\"')}).AsyncEntry)('closebook-test-hung', 'warm').setPassword('v')"`,
          'dbus-send --session --print-reply --dest=org.freedesktop.secrets /org/freedesktop/secrets ' +
            'org.freedesktop.Secret.Service.Lock array:objpath:/org/freedesktop/secrets/collection/login >/dev/null',
          `${PYTHON} ${JSON.stringify(prompter)} > ${JSON.stringify(join(work, 'prompter.out'))} &`,
          'export PROMPTER_PID=$!',
          `for _ in $(seq 100); do grep -q owned ${JSON.stringify(join(work, 'prompter.out'))} 2>/dev/null && break; sleep 0.1; done`,
          `exec ${JSON.stringify(TSX)} ${JSON.stringify(save)}`,
        ].join('\n'),
      )
      const outcome = JSON.parse(out) as { code?: string; message?: string; ms: number; saved?: boolean }
      expect(outcome.saved).toBeUndefined()
      expect(outcome.code).toBe('keychain_timeout')
      expect(outcome.message).toMatch(/did not answer within 1\.5 s/)
      expect(outcome.message).not.toContain('sk_live')
      expect(outcome.ms).toBeGreaterThanOrEqual(bound - 5)
      expect(outcome.ms).toBeLessThan(bound + 5_000)
    },
    120_000,
  )
})
