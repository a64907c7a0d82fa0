import { z } from 'zod'

const hex = (length: number) =>
  z.string().regex(new RegExp(`^[0-9a-f]{${length}}$`), `expected ${length} hex digits`)

/** A backup's digest (SHA-256 chain over its text, computed by the renderer while streaming it). */
export const backupDigestSchema = hex(64)
export const backupSignatureSchema = z.strictObject({ keyId: hex(16), mac: hex(64) })
export type BackupSignature = z.infer<typeof backupSignatureSchema>

/** A passphrase the user chooses for the key file: long enough that scrypt makes it worth guessing. */
export const keyPassphraseSchema = z.string().min(10).max(1_024)

/**
 * Backup signing. Main keeps the key in the OS keychain and never returns it: the renderer sends a digest
 * and gets a signature, or a signature's status. The key leaves only wrapped under the user's passphrase.
 */
export const backupContract = {
  'backup:sign': { args: z.strictObject({ digest: backupDigestSchema }), result: backupSignatureSchema },
  'backup:verify': {
    args: z.strictObject({ digest: backupDigestSchema, keyId: hex(16), mac: hex(64) }),
    result: z.object({ status: z.enum(['verified', 'unknown_key', 'mismatch']) }),
  },
  'backup:exportKey': {
    args: z.strictObject({ passphrase: keyPassphraseSchema }),
    result: z.object({ keyFile: z.string().max(4_096) }),
  },
  'backup:importKey': {
    args: z.strictObject({ keyFile: z.string().max(4_096), passphrase: keyPassphraseSchema }),
    result: z.object({ keyId: hex(16) }),
  },
} as const
