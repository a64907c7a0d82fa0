/**
 * Finished files in the web host: moved into `<dataDir>/exports/` (0700, files 0600: they hold
 * cardholder names and e-mails) under a unique name, and offered once at `/download/<id>` (a random
 * capability: a browser download cannot carry the bearer token). Once the browser has the file, the
 * host's copy is removed; so is a file whose offer expired untaken, and whatever an earlier run left
 * behind. The browser's download is the one copy that remains.
 */
import { randomBytes } from 'node:crypto'
import { chmod, mkdir, readdir, rm, stat } from 'node:fs/promises'
import { extname, join } from 'node:path'
import type { DeliveredFile } from '../shared/contract/files'
import { moveIntoPlace } from '../services/files/move-into-place'

interface Offer {
  path: string
  fileName: string
  expiresAt: number
}

export class DownloadRegistry {
  private readonly offers = new Map<string, Offer>()
  private prepared: Promise<void> | undefined

  constructor(
    private readonly exportsDir: string,
    private readonly now: () => number = Date.now,
    private readonly lifetimeMs = 10 * 60_000,
  ) {}

  /** The web host's `deliverFile` adapter. */
  readonly deliver = async (tempPath: string, suggestedName: string): Promise<DeliveredFile> => {
    await this.prepare()
    await this.sweep()
    const fileName = await this.uniqueName(suggestedName)
    const path = join(this.exportsDir, fileName)
    await moveIntoPlace(tempPath, path)
    const id = randomBytes(24).toString('base64url')
    this.offers.set(id, { path, fileName, expiresAt: this.now() + this.lifetimeMs })
    return { savedTo: 'download', downloadUrl: `/download/${id}`, fileName }
  }

  /** Takes the offer (one use). The caller removes the file with `delivered` once it is sent. */
  take(id: string): Offer | null {
    const offer = this.offers.get(id)
    this.offers.delete(id)
    if (!offer || offer.expiresAt < this.now()) {
      if (offer) void rm(offer.path, { force: true })
      return null
    }
    return offer
  }

  /** The browser has the file (or the one attempt failed): the host keeps no copy. */
  async delivered(offer: Offer): Promise<void> {
    await rm(offer.path, { force: true })
  }

  /** Removes files whose offers expired untaken. */
  async sweep(): Promise<void> {
    const now = this.now()
    for (const [id, offer] of [...this.offers])
      if (offer.expiresAt < now) {
        this.offers.delete(id)
        await rm(offer.path, { force: true })
      }
  }

  /**
   * Once per run: a private folder, emptied of what earlier runs left (nobody can download those). The
   * host calls it at start-up; the first delivery waits for it.
   */
  prepare(): Promise<void> {
    this.prepared ??= (async () => {
      await mkdir(this.exportsDir, { recursive: true, mode: 0o700 })
      await chmod(this.exportsDir, 0o700)
      for (const name of await readdir(this.exportsDir))
        await rm(join(this.exportsDir, name), { force: true, recursive: true })
    })().catch((error: unknown) => {
      this.prepared = undefined
      throw error
    })
    return this.prepared
  }

  private async uniqueName(suggested: string): Promise<string> {
    const ext = extname(suggested)
    const stem = suggested.slice(0, suggested.length - ext.length)
    for (let n = 1; ; n++) {
      const candidate = n === 1 ? suggested : `${stem} (${n})${ext}`
      const exists = await stat(join(this.exportsDir, candidate)).then(
        () => true,
        () => false,
      )
      if (!exists) return candidate
    }
  }
}
