/** Key/value settings. Values are read back through a zod schema, since stored data may be stale. */
import type { z } from 'zod'
import type { ClosebookDb } from './database'
import type { SettingRecord } from './storage-rows'

export class SettingsRepository {
  constructor(private readonly db: ClosebookDb) {}

  async getRaw(key: string): Promise<unknown> {
    return (await this.db.settings.get(key))?.value
  }

  /** The stored value if it parses, otherwise the fallback (absent, or written by an older version). */
  async get<T>(key: string, schema: z.ZodType<T>, fallback: T): Promise<T> {
    const parsed = schema.safeParse(await this.getRaw(key))
    return parsed.success ? parsed.data : fallback
  }

  async set(key: string, value: unknown): Promise<void> {
    await this.db.settings.put({ key, value })
  }

  async delete(key: string): Promise<void> {
    await this.db.settings.delete(key)
  }

  async list(): Promise<SettingRecord[]> {
    return this.db.settings.toArray()
  }
}
