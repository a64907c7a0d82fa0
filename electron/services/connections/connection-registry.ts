/**
 * The non-secret half of every saved connection, as JSON in the app's data directory. Written atomically
 * (temporary file, fsync, rename), validated on load; an unreadable file is moved aside as
 * `connections.json.corrupt-<time>` and reported, never overwritten or deleted.
 */
import { readFile, rename } from 'node:fs/promises'
import { join } from 'node:path'
import { z } from 'zod'
import { checkBaseUrl, isIanaTimeZone } from '../../shared/contract/connections'
import { DesktopApiError } from '../../shared/errors'
import { uuidSchema } from '../../shared/payment-api'
import { saveJsonFile } from '../files/save-json'

export const storedConnectionSchema = z.object({
  id: uuidSchema,
  label: z.string().min(1),
  baseUrl: z.string().refine((u) => checkBaseUrl(u).ok, 'not an allowed base URL'),
  storeIds: z.array(uuidSchema),
  timeZone: z.string().refine(isIanaTimeZone, 'not an IANA time zone'),
  /** Whether credentials were stored in the keychain for it (the keychain itself is not asked on list). */
  hasCredentials: z.boolean(),
  createdAt: z.string(),
  updatedAt: z.string(),
})
export type StoredConnection = z.infer<typeof storedConnectionSchema>

const registryFileSchema = z.object({
  version: z.literal(1),
  connections: z
    .array(storedConnectionSchema)
    .refine((list) => new Set(list.map((c) => c.id)).size === list.length, 'connection ids must be unique'),
})

export interface RegistryLoad {
  connections: StoredConnection[]
  /** Set when the file was unreadable and has been kept aside. */
  problem?: string
}

export const REGISTRY_FILE = 'connections.json'

export class ConnectionRegistry {
  readonly path: string

  constructor(
    private readonly dataDir: string,
    private readonly now: () => number = Date.now,
  ) {
    this.path = join(dataDir, REGISTRY_FILE)
  }

  async load(): Promise<RegistryLoad> {
    let text: string
    try {
      text = await readFile(this.path, 'utf8')
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { connections: [] }
      // Unreadable but maybe fine (permissions): refuse rather than start empty and overwrite it later.
      throw new DesktopApiError(
        'internal',
        `The saved connections file ${this.path} could not be read ` +
          `(${(error as NodeJS.ErrnoException).code ?? 'unknown error'}).`,
      )
    }
    let why: string
    try {
      const parsed = registryFileSchema.safeParse(JSON.parse(text))
      if (parsed.success) return { connections: parsed.data.connections }
      const first = parsed.error.issues[0]
      why = `${first?.path.join('.') || 'file'}: ${first?.message ?? 'invalid'}`
    } catch {
      why = 'not valid JSON'
    }
    const keptAs = `${this.path}.corrupt-${new Date(this.now()).toISOString().replace(/[:.]/g, '-')}`
    await rename(this.path, keptAs)
    return {
      connections: [],
      problem:
        `The saved connections file could not be read (${why}). It was kept as ${keptAs}, and Closebook ` +
        'started with no saved connections. Credentials in the keychain were not touched.',
    }
  }

  async save(connections: readonly StoredConnection[]): Promise<void> {
    await saveJsonFile(this.path, { version: 1, connections }, 'the connection')
  }
}
