import type { BackupSigner } from '../vault/backup-signing'
import type { HandlersFor } from './types'

export function backupHandlers(signer: BackupSigner): HandlersFor<'backup'> {
  return {
    'backup:sign': ({ digest }) => signer.sign(digest),
    'backup:verify': async ({ digest, keyId, mac }) => ({ status: await signer.verify(digest, keyId, mac) }),
    'backup:exportKey': async ({ passphrase }) => ({ keyFile: await signer.exportKey(passphrase) }),
    'backup:importKey': async ({ keyFile, passphrase }) => ({
      keyId: await signer.importKey(keyFile, passphrase),
    }),
  }
}
