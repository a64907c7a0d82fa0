import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { FileWriter, type DeliverFile } from '../../../../../electron/services/files/file-writer'
import { diskError, moveIntoPlace } from '../../../../../electron/services/files/move-into-place'
import { DesktopApiError } from '../../../../../electron/shared/errors'

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'closebook-files-'))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

/** A writer whose finished file is moved to `target`. */
const writerTo = (target: string): FileWriter =>
  new FileWriter({
    dataDir: dir,
    deliverFile: async (temp, name) => {
      await moveIntoPlace(temp, target)
      return { savedTo: 'path', path: target, fileName: name }
    },
  })

const tmpFiles = async () => (await readdir(join(dir, 'tmp')).catch(() => [])).length

describe('FileWriter', () => {
  it('streams chunks to a temporary file and delivers it whole at finish', async () => {
    const target = join(dir, 'backup.json')
    const deliver: DeliverFile = async (temp, name) => {
      await moveIntoPlace(temp, target)
      return { savedTo: 'path', path: target, fileName: name }
    }
    const files = new FileWriter({ dataDir: dir, deliverFile: deliver })
    const id = await files.begin('backup.json')
    await files.append(id, '{"a":')
    expect(await files.append(id, '"日本"}')).toBe(Buffer.byteLength('{"a":"日本"}'))
    await expect(readFile(target, 'utf8')).rejects.toThrow() // nothing at the target before finish
    await expect(files.finish(id)).resolves.toEqual({
      savedTo: 'path',
      path: target,
      fileName: 'backup.json',
    })
    expect(await readFile(target, 'utf8')).toBe('{"a":"日本"}')
    expect(await tmpFiles()).toBe(0)
  })

  it('writes Shift_JIS bytes when asked, and refuses a character Shift_JIS cannot hold', async () => {
    const target = join(dir, 'yayoi.txt')
    const files = writerTo(target)
    const id = await files.begin('yayoi.txt', 'shift_jis')
    await files.append(id, '2111,,,2026/10/01,売掛金,')
    await files.finish(id)
    const bytes = await readFile(target)
    expect(bytes.includes(0x94)).toBe(true) // 売 is 0x94 0x84 in Shift_JIS, never 0xE5… (UTF-8)
    expect(new TextDecoder('shift_jis').decode(bytes)).toBe('2111,,,2026/10/01,売掛金,')

    const bad = await files.begin('bad.txt', 'shift_jis')
    await expect(files.append(bad, '売上😀')).rejects.toMatchObject({ code: 'invalid_argument' })
    expect(await tmpFiles()).toBe(0)
  })

  it('writes the bytes of base64 chunks, and refuses a chunk that is not whole base64 groups', async () => {
    const target = join(dir, 'backup.jsonl.gz')
    const files = writerTo(target)
    const bytes = Buffer.from(Array.from({ length: 300 }, (_, i) => (i * 37) % 256))
    const id = await files.begin('backup.jsonl.gz', 'base64')
    // Each chunk alone: whole groups, the last one padded.
    expect(await files.append(id, bytes.subarray(0, 150).toString('base64'))).toBe(150)
    expect(await files.append(id, bytes.subarray(150, 299).toString('base64'))).toBe(299)
    await files.finish(id)
    expect(Buffer.compare(await readFile(target), bytes.subarray(0, 299))).toBe(0)

    for (const chunk of ['QUJD', 'QUJ', 'QU=D', 'QUJD!A==', 'QUJD\n', 'QUJDQQ===']) {
      const bad = await files.begin('bad.jsonl.gz', 'base64')
      if (chunk === 'QUJD') {
        await expect(files.append(bad, chunk)).resolves.toBe(3)
        await files.cancel(bad)
        continue
      }
      await expect(files.append(bad, chunk), chunk).rejects.toMatchObject({
        code: 'invalid_argument',
        message: 'bad.jsonl.gz: a chunk is not base64 in whole four-character groups.',
      })
      // The file is gone: a later chunk is not written to it.
      await expect(files.append(bad, 'QUJD')).rejects.toMatchObject({ code: 'not_found' })
    }
    expect(await tmpFiles()).toBe(0)
  })

  it('writes temporary and delivered files 0600 in a 0700 folder, and clears a crashed run’s leftovers', async () => {
    await mkdir(join(dir, 'tmp'), { mode: 0o755 })
    const old = join(dir, 'tmp', 'crashed.partial')
    await writeFile(old, 'names and e-mails')
    await utimes(old, new Date(Date.now() - 2 * 86_400_000), new Date(Date.now() - 2 * 86_400_000))
    const target = join(dir, 'export.csv')
    let tempMode = 0
    const deliver: DeliverFile = async (temp, name) => {
      tempMode = (await stat(temp)).mode & 0o777
      await moveIntoPlace(temp, target)
      return { savedTo: 'path', path: target, fileName: name }
    }
    const files = new FileWriter({ dataDir: dir, deliverFile: deliver })
    const id = await files.begin('export.csv')
    expect((await stat(join(dir, 'tmp'))).mode & 0o777).toBe(0o700)
    expect(await readdir(join(dir, 'tmp'))).toHaveLength(1) // the leftover is gone, ours is there
    await files.append(id, 'a,b')
    await files.finish(id)
    expect(tempMode).toBe(0o600)
    expect((await stat(target)).mode & 0o777).toBe(0o600)
  })

  it('leaves nothing behind on cancel, and refuses further chunks', async () => {
    const files = new FileWriter({
      dataDir: dir,
      deliverFile: () => Promise.reject(new Error('not expected')),
    })
    const id = await files.begin('x.csv')
    await files.append(id, 'a,b\n')
    expect(await files.cancel(id)).toBe(true)
    expect(await tmpFiles()).toBe(0)
    await expect(files.append(id, 'c')).rejects.toMatchObject({ code: 'not_found' })
  })

  it('removes the temporary file when delivery is cancelled by the user or fails', async () => {
    const cancelled = new FileWriter({
      dataDir: dir,
      deliverFile: (_t, n) => Promise.resolve({ savedTo: 'cancelled', fileName: n }),
    })
    const a = await cancelled.begin('a.json')
    await cancelled.append(a, 'x')
    await expect(cancelled.finish(a)).resolves.toMatchObject({ savedTo: 'cancelled' })
    const failing = new FileWriter({
      dataDir: dir,
      deliverFile: () => Promise.reject(new DesktopApiError('disk_full', 'full')),
    })
    const b = await failing.begin('b.json')
    await expect(failing.finish(b)).rejects.toMatchObject({ code: 'disk_full' })
    expect(await tmpFiles()).toBe(0)
  })

  it('sweeps files abandoned for longer than the idle time', async () => {
    let now = 1_000
    const files = new FileWriter({
      dataDir: dir,
      deliverFile: () => Promise.reject(new Error('no')),
      now: () => now,
      idleMs: 100,
    })
    const id = await files.begin('old.json')
    now += 101
    await files.sweep()
    expect(await tmpFiles()).toBe(0)
    await expect(files.append(id, 'x')).rejects.toMatchObject({ code: 'not_found' })
  })
})

describe('moveIntoPlace', () => {
  it('replaces the target only with a complete file', async () => {
    const target = join(dir, 'out.xlsx')
    await writeFile(target, 'previous')
    const temp = join(dir, 'temp.partial')
    await writeFile(temp, 'new contents')
    await moveIntoPlace(temp, target)
    expect(await readFile(target, 'utf8')).toBe('new contents')
    expect((await readdir(dir)).sort()).toEqual(['out.xlsx'])
  })

  it('leaves the previous file untouched and no partial when the target folder is not writable', async () => {
    if (process.getuid?.() === 0) {
      // root ignores permission bits: emulate a failure with a target inside a missing folder instead.
      const temp = join(dir, 'temp.partial')
      await writeFile(temp, 'new')
      await expect(moveIntoPlace(temp, join(dir, 'missing', 'out.csv'))).rejects.toBeInstanceOf(
        DesktopApiError,
      )
      expect(await readdir(dir)).toEqual([])
      return
    }
    const locked = join(dir, 'locked')
    await writeFile(join(dir, 'temp.partial'), 'new')
    await chmod(dir, 0o500)
    await expect(moveIntoPlace(join(dir, 'temp.partial'), join(locked, 'x'))).rejects.toBeInstanceOf(
      DesktopApiError,
    )
    await chmod(dir, 0o700)
  })

  it('names a full disk plainly', () => {
    const error = diskError(Object.assign(new Error('x'), { code: 'ENOSPC' }), 'closebook-2026-10.xlsx')
    expect(error.code).toBe('disk_full')
    expect(error.message).toContain('disk is full')
  })
})
