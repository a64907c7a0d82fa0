/**
 * A signed backup: its digest is computed while it streams, main signs it, and any change made outside
 * Closebook (one byte, a forged audit entry, a dropped signature) no longer verifies.
 */
import { createHmac, randomBytes } from 'node:crypto'
import { gzipSync } from 'node:zlib'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { countTables } from '../../../../src/db/backup'
import {
  BackupError,
  checkBackupFile,
  restoreBackupFile,
  streamBackup,
} from '../../../../src/db/backup-stream'
import type { ClosebookDb } from '../../../../src/db/database'
import { T0, auditEntry, openDb } from './fixtures'
import { seedMarkedCache } from './backup-support'

let db: ClosebookDb
let other: ClosebookDb
let signer: TestSigner

/** Main's side as the renderer sees it (backup:sign, backup:verify): a key it never shows. */
class TestSigner {
  private readonly key = randomBytes(32)
  readonly keyId = randomBytes(8).toString('hex')
  private macOf = (digest: string): string => createHmac('sha256', this.key).update(digest).digest('hex')
  sign(digest: string): Promise<{ keyId: string; mac: string }> {
    return Promise.resolve({ keyId: this.keyId, mac: this.macOf(digest) })
  }
  verify(digest: string, keyId: string, mac: string): Promise<string> {
    if (keyId !== this.keyId) return Promise.resolve('unknown_key')
    return Promise.resolve(mac === this.macOf(digest) ? 'verified' : 'mismatch')
  }
}

async function signedText(source: ClosebookDb, chunkChars?: number): Promise<string> {
  let text = ''
  const options = { now: new Date(T0), sign: (digest: string) => signer.sign(digest) }
  for await (const chunk of streamBackup(source, chunkChars ? { ...options, chunkChars } : options))
    text += chunk
  return text
}

/** What Settings would say about a file: the check's digest and signature, verified by main. */
async function statusOf(file: Blob): Promise<string> {
  const check = await checkBackupFile(file)
  if (!check.signature) return 'unsigned'
  return signer.verify(check.digest, check.signature.keyId, check.signature.mac)
}

beforeEach(async () => {
  signer = new TestSigner()
  db = openDb()
  other = openDb('other')
  await seedMarkedCache(db, 40)
})
afterEach(() => {
  db.close()
  other.close()
})

describe('signed backups', () => {
  it('verifies a backup as written, gzipped or not, however it was cut into chunks', async () => {
    const text = await signedText(db)
    expect(text.trimEnd().split('\n').at(-1)).toMatch(
      /^\{"signature":\{"keyId":"[0-9a-f]{16}","mac":"[0-9a-f]{64}"\}\}$/,
    )
    expect(await statusOf(new Blob([text]))).toBe('verified')
    expect(await statusOf(new Blob([gzipSync(text)]))).toBe('verified')
    expect((await checkBackupFile(new Blob([await signedText(db, 100)]))).digest).toBe(
      (await checkBackupFile(new Blob([text]))).digest,
    )
  })

  it('verifies a backup of several hundred kilobytes, which the reader digests a batch of lines at a time', async () => {
    const big = openDb('big')
    await seedMarkedCache(big, 400)
    const text = await signedText(big)
    big.close()
    expect(text.length).toBeGreaterThan(4 * 64 * 1024)
    expect(await statusOf(new Blob([text]))).toBe('verified')
    expect(await statusOf(new Blob([text.replace('"note":"ok"', '"note":"oK"')]))).toBe('mismatch')
  })

  it('does not verify once one byte was edited, nor on a computer without the key', async () => {
    const text = await signedText(db)
    const edited = text.replace('"note":"ok"', '"note":"oK"')
    expect(edited).not.toBe(text)
    expect(await statusOf(new Blob([edited]))).toBe('mismatch')
    signer = new TestSigner()
    expect(await statusOf(new Blob([text]))).toBe('unknown_key')
  })

  it('does not verify with a forged audit entry, and says unsigned when the signature was dropped', async () => {
    const text = await signedText(db)
    const lines = text.split('\n')
    const at = lines.findIndex((l) => l.startsWith('{"table":"audit"'))
    const forged = JSON.stringify(
      auditEntry({ seq: 2, key: null, action: 'note', actor: 'External Auditor' }),
    )
    lines[at] = lines[at]!.replace('"rows":1', '"rows":2')
    lines.splice(at + 2, 0, forged)
    const end = lines.findIndex((l) => l.startsWith('{"end"'))
    lines[end] = lines[end]!.replace(/"rows":(\d+)/, (_, n: string) => `"rows":${Number(n) + 1}`)
    expect(await statusOf(new Blob([lines.join('\n')]))).toBe('mismatch')
    const unsigned = text.slice(0, text.lastIndexOf('{"signature"'))
    expect(await statusOf(new Blob([unsigned]))).toBe('unsigned')
  })

  it('refuses a second signature line or anything after it', async () => {
    const text = await signedText(db)
    const last = text.trimEnd().split('\n').at(-1)!
    const error = await checkBackupFile(new Blob([`${text}${last}\n`])).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(BackupError)
    expect(error).toMatchObject({ code: 'invalid_line' })
  })

  it('refuses to restore a file that reads differently from the one that was checked', async () => {
    await seedMarkedCache(other, 40)
    const before = await countTables(other)
    const checked = await checkBackupFile(new Blob([await signedText(db)]))
    const swapped = new Blob([(await signedText(db)).replace('"note":"ok"', '"note":"no"')])
    const error = await restoreBackupFile(other, swapped, { expectDigest: checked.digest }).catch(
      (e: unknown) => e,
    )
    expect(error).toMatchObject({ code: 'changed_since_check' })
    expect(await countTables(other)).toEqual(before)
  })
})
