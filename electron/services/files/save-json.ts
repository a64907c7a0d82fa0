/**
 * Saves a small JSON file of the app's own (settings, the connection registry) so that a crash leaves the
 * old file or the new one, never half of either: a 0600 temporary file beside it, fsync, rename. A failure
 * removes the temporary file and becomes a DesktopApiError naming `what` (disk full said as such).
 */
import { randomBytes } from 'node:crypto'
import { mkdir, open, rename, unlink } from 'node:fs/promises'
import { dirname } from 'node:path'
import { DesktopApiError } from '../../shared/errors'

export async function saveJsonFile(path: string, value: unknown, what: string): Promise<void> {
  const body = `${JSON.stringify(value, null, 2)}\n`
  const temp = `${path}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`
  try {
    await mkdir(dirname(path), { recursive: true })
    const handle = await open(temp, 'w', 0o600)
    try {
      await handle.writeFile(body, 'utf8')
      await handle.sync()
    } finally {
      await handle.close()
    }
    await rename(temp, path)
  } catch (error) {
    await unlink(temp).catch(() => undefined)
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOSPC' || code === 'EDQUOT')
      throw new DesktopApiError('disk_full', `The disk is full: ${what} could not be saved.`)
    throw new DesktopApiError(
      'internal',
      `${what[0]?.toUpperCase() ?? ''}${what.slice(1)} could not be saved (${code ?? 'unknown error'}).`,
    )
  }
}
