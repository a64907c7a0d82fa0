/**
 * Puts a finished temporary file at its final path without ever leaving a half-written file there: copy
 * (or rename) to a hidden sibling of the target, fsync, then rename over. A failure removes the sibling and
 * leaves whatever was at the target before untouched.
 */
import { randomBytes } from 'node:crypto'
import { copyFile, open, rename, rm } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { DesktopApiError } from '../../shared/errors'

export function diskError(error: unknown, what: string): DesktopApiError {
  const code = (error as NodeJS.ErrnoException | undefined)?.code
  if (code === 'ENOSPC' || code === 'EDQUOT') {
    return new DesktopApiError(
      'disk_full',
      `The disk is full: ${what} was not written. Free some space and try again.`,
    )
  }
  if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') {
    return new DesktopApiError(
      'forbidden',
      `Closebook may not write there: ${what} was not written. Choose another folder.`,
    )
  }
  return new DesktopApiError('internal', `${what} could not be written (${code ?? 'unknown error'}).`)
}

export async function moveIntoPlace(tempPath: string, targetPath: string): Promise<void> {
  const sibling = join(
    dirname(targetPath),
    `.${basename(targetPath)}.${randomBytes(6).toString('hex')}.partial`,
  )
  try {
    try {
      await rename(tempPath, sibling)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error
      await copyFile(tempPath, sibling) // another file system: copy, then the temp file goes below
    }
    const handle = await open(sibling, 'r+')
    try {
      // Exports and backups hold cardholder names and e-mails: readable by their owner only.
      await handle.chmod(0o600)
      await handle.sync()
    } finally {
      await handle.close()
    }
    await rename(sibling, targetPath)
  } catch (error) {
    await rm(sibling, { force: true })
    throw diskError(error, basename(targetPath))
  } finally {
    await rm(tempPath, { force: true })
  }
}
