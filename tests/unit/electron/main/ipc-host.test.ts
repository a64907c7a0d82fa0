import { EventEmitter } from 'node:events'
import { describe, expect, it } from 'vitest'
import type { IpcMainInvokeEvent } from 'electron'
import { isTrustedSender, registerIpcHost } from '../../../../electron/main/ipc-host'
import type { AppOrigin } from '../../../../electron/main/security'
import { handlersWith } from '../support/handlers'
import { CHANNELS } from '../../../../electron/shared/channels'
import type { CallOutcome } from '../../../../electron/shared/errors'

type Listener = (event: IpcMainInvokeEvent, args: unknown) => Promise<CallOutcome>

/** A fake of the parts of `ipcMain` the host uses: records handlers so tests can invoke them. */
function fakeIpcMain() {
  const registered = new Map<string, Listener>()
  return {
    registered,
    handle: (channel: string, listener: Listener) => void registered.set(channel, listener),
    removeHandler: (channel: string) => void registered.delete(channel),
  }
}

const appOrigin: AppOrigin = { kind: 'file', indexPath: '/opt/closebook/out/renderer/index.html' }
const APP_URL = 'file:///opt/closebook/out/renderer/index.html#/ledger'
const OWN_ID = 7

function event(
  options: { senderId?: number; url?: string; isSubframe?: boolean; noFrame?: boolean } = {},
): IpcMainInvokeEvent {
  const topFrame = { url: options.url ?? APP_URL, parent: null }
  const frame = options.isSubframe ? { url: options.url ?? APP_URL, parent: topFrame } : topFrame
  return {
    sender: { id: options.senderId ?? OWN_ID, once: () => undefined, removeListener: () => undefined },
    senderFrame: options.noFrame ? null : frame,
  } as unknown as IpcMainInvokeEvent
}

let handlerRuns = 0
const handlers = handlersWith({
  'app:info': () => {
    handlerRuns += 1
    return Promise.resolve({
      name: 'Closebook',
      version: '1',
      host: 'electron',
      platform: 'linux',
      keychain: { available: true },
    })
  },
  'app:openExternal': () => Promise.resolve({ opened: true }),
})

function setup() {
  const ipcMain = fakeIpcMain()
  const unregister = registerIpcHost({
    ipcMain,
    handlers,
    appOrigin,
    isOwnWebContents: (id) => id === OWN_ID,
  })
  const invoke = (channel: string, e: IpcMainInvokeEvent, args: unknown = {}) => {
    const listener = ipcMain.registered.get(channel)
    if (!listener) throw new Error(`no handler for ${channel}`)
    return listener(e, args)
  }
  return { ipcMain, unregister, invoke }
}

describe('IPC host', () => {
  it('registers exactly one handler per contract channel and removes them all', () => {
    const { ipcMain, unregister } = setup()
    expect([...ipcMain.registered.keys()].sort()).toEqual([...CHANNELS].sort())
    unregister()
    expect(ipcMain.registered.size).toBe(0)
  })

  it('answers the top frame of our window showing the app page', async () => {
    const { invoke } = setup()
    await expect(invoke('app:info', event())).resolves.toMatchObject({
      ok: true,
      value: { host: 'electron' },
    })
  })

  it('refuses calls from an iframe, another web contents, a foreign page or a destroyed frame', async () => {
    const { invoke } = setup()
    const before = handlerRuns
    const untrusted = [
      event({ isSubframe: true }),
      event({ senderId: 99 }),
      event({ url: 'https://evil.example/' }),
      event({ url: 'file:///tmp/other.html' }),
      event({ noFrame: true }),
    ]
    for (const e of untrusted) {
      await expect(invoke('app:info', e)).resolves.toMatchObject({
        ok: false,
        error: { code: 'forbidden_sender' },
      })
    }
    expect(handlerRuns).toBe(before)
  })

  it('validates arguments after the sender check', async () => {
    const { invoke } = setup()
    await expect(
      invoke('app:openExternal', event(), { target: 'https://evil.example' }),
    ).resolves.toMatchObject({
      ok: false,
      error: { code: 'invalid_argument' },
    })
  })

  it('accepts the dev server origin only in dev-server mode', () => {
    const dev: AppOrigin = { kind: 'dev-server', origin: 'http://localhost:5173' }
    const own = { appOrigin: dev, isOwnWebContents: () => true }
    expect(isTrustedSender(event({ url: 'http://localhost:5173/#/ledger' }), own)).toBe(true)
    expect(isTrustedSender(event({ url: 'http://localhost:5174/' }), own)).toBe(false)
    expect(isTrustedSender(event({ url: APP_URL }), own)).toBe(false)
  })

  it('leaves no destroyed listener behind on the sender, and still aborts a call in flight', async () => {
    let started!: () => void
    const running = new Promise<void>((resolve) => (started = resolve))
    const waiting = handlersWith({
      'app:info': (_args, ctx) =>
        new Promise((_resolve, reject) => {
          started()
          ctx.signal.addEventListener('abort', () => reject(new Error('aborted')))
        }),
      'connections:list': () => Promise.resolve([]),
    })
    const ipcMain = fakeIpcMain()
    registerIpcHost({ ipcMain, handlers: waiting, appOrigin, isOwnWebContents: (id) => id === OWN_ID })
    const sender = Object.assign(new EventEmitter(), { id: OWN_ID })
    const e = {
      sender,
      senderFrame: { url: APP_URL, parent: null },
    } as unknown as IpcMainInvokeEvent
    for (let i = 0; i < 200; i++)
      await expect(ipcMain.registered.get('connections:list')!(e, {})).resolves.toEqual({
        ok: true,
        value: [],
      })
    expect(sender.listenerCount('destroyed')).toBe(0)

    const call = ipcMain.registered.get('app:info')!(e, {})
    await running
    expect(sender.listenerCount('destroyed')).toBe(1)
    sender.emit('destroyed')
    await expect(call).resolves.toMatchObject({ ok: false, error: { code: 'cancelled' } })
    expect(sender.listenerCount('destroyed')).toBe(0)
  })
})
