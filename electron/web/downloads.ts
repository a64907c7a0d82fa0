/**
 * Finished files in the web host: moved into `<dataDir>/exports/` under a unique name, and offered once
 * at `/download/<id>` (a random capability: a browser download cannot carry the bearer token). An id
 * works for one download within its lifetime, then it is gone; the file stays in the exports folder.
 */
import { randomBytes } from 'node:crypto'
import { mkdir, stat } from 'node:fs/promises'
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

  constructor(
    private readonly exportsDir: string,
    private readonly now: () => number = Date.now,
    private readonly lifetimeMs = 10 * 60_000,
  ) {}

  /** The web host's `deliverFile` adapter. */
  readonly deliver = async (tempPath: string, suggestedName: string): Promise<DeliveredFile> => {
    await mkdir(this.exportsDir, { recursive: true })
    const fileName = await this.uniqueName(suggestedName)
    const path = join(this.exportsDir, fileName)
    await moveIntoPlace(tempPath, path)
    const id = randomBytes(24).toString('base64url')
    this.offers.set(id, { path, fileName, expiresAt: this.now() + this.lifetimeMs })
    return { savedTo: 'download', downloadUrl: `/download/${id}`, fileName }
  }

  /** Takes the offer (one use). */
  take(id: string): Offer | null {
    const offer = this.offers.get(id)
    this.offers.delete(id)
    if (!offer || offer.expiresAt < this.now()) return null
    return offer
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
