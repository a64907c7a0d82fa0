import { afterEach, describe, expect, it } from 'vitest'
import type { DesktopApi } from '../../../../electron/shared/contract'
import { setDesktopApiForTests } from '../../../../src/platform'
import { writeFileThroughHost } from '../../../../src/platform/files'

/** A host whose appends finish only when the test says so, recording what happened in order. */
function slowHost(fail?: (chunk: string) => boolean): {
  events: string[]
  finishAppend: () => void
  api: DesktopApi
} {
  const events: string[] = []
  const waiting: (() => void)[] = []
  let inFlight = 0
  let bytes = 0
  const files: Pick<DesktopApi, 'files'> = {
    files: {
      begin: () => Promise.resolve({ fileId: 'f1' }),
      append: async ({ chunk }) => {
        inFlight++
        events.push(`append ${chunk} (${inFlight} in flight)`)
        await new Promise<void>((r) => waiting.push(r))
        inFlight--
        if (fail?.(chunk)) throw new Error(`disk full at ${chunk}`)
        events.push(`written ${chunk}`)
        return { bytesWritten: (bytes += chunk.length) }
      },
      finish: () => {
        events.push('finish')
        return Promise.resolve({ savedTo: 'path', path: '/tmp/x.csv', fileName: 'x.csv' })
      },
      cancel: () => {
        events.push('cancel')
        return Promise.resolve({ cancelled: true })
      },
    },
  }
  const finishAppend = (): void => waiting.shift()?.()
  return { events, finishAppend, api: files as DesktopApi }
}

/** Lets every pending promise settle. */
const settle = (): Promise<void> => new Promise((r) => setTimeout(r, 0))

/** Chunks a, b, c, each logged when the writer asks for it. */
async function* produced(events: string[]): AsyncGenerator<string> {
  for (const c of ['a', 'b', 'c']) {
    events.push(`produce ${c}`)
    yield await Promise.resolve(c)
  }
}

afterEach(() => setDesktopApiForTests(undefined))

describe('writeFileThroughHost', () => {
  it('produces the next chunk while the host writes the last one, with one append in flight, in order', async () => {
    const host = slowHost()
    setDesktopApiForTests(host.api)
    const done = writeFileThroughHost('x.csv', 'text/csv', produced(host.events))
    await settle()
    // Chunk b is read and formatted while the host still writes a; it waits for a before it is sent.
    expect(host.events).toEqual(['produce a', 'append a (1 in flight)', 'produce b'])
    for (let i = 0; i < 3; i++) {
      host.finishAppend()
      await settle()
    }
    expect(await done).toMatchObject({ fileName: 'x.csv' })
    expect(host.events).toEqual([
      'produce a',
      'append a (1 in flight)',
      'produce b',
      'written a',
      'append b (1 in flight)',
      'produce c',
      'written b',
      'append c (1 in flight)',
      'written c',
      'finish',
    ])
  })

  it('cancels the file when an append fails, and sends no chunk after it', async () => {
    const host = slowHost((chunk) => chunk === 'a')
    setDesktopApiForTests(host.api)
    const done = writeFileThroughHost('x.csv', 'text/csv', produced(host.events))
    const failed = expect(done).rejects.toThrow('disk full at a')
    await settle()
    host.finishAppend()
    await settle()
    await failed
    expect(host.events).toEqual(['produce a', 'append a (1 in flight)', 'produce b', 'cancel'])
  })

  it('cancels only once the append under way has ended when reading the next chunk fails', async () => {
    const host = slowHost()
    setDesktopApiForTests(host.api)
    async function* broken(): AsyncGenerator<string> {
      yield await Promise.resolve('a')
      throw new Error('the cache could not be read')
    }
    const done = writeFileThroughHost('x.csv', 'text/csv', broken())
    const failed = expect(done).rejects.toThrow('the cache could not be read')
    await settle()
    expect(host.events).toEqual(['append a (1 in flight)'])
    host.finishAppend()
    await settle()
    await failed
    expect(host.events).toEqual(['append a (1 in flight)', 'written a', 'cancel'])
  })
})
