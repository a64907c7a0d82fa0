import { z } from 'zod'

export const hostKindSchema = z.enum(['electron', 'web'])
export type HostKind = z.infer<typeof hostKindSchema>

export const appInfoSchema = z.object({
  name: z.string(),
  version: z.string(),
  host: hostKindSchema,
  platform: z.string(),
  keychain: z.object({ available: z.boolean(), reason: z.string().optional() }),
})
export type AppInfo = z.infer<typeof appInfoSchema>

export const appContract = {
  'app:info': { args: z.strictObject({}), result: appInfoSchema },
  /** Opens an allow-listed external link (documentation) in the system browser. */
  'app:openExternal': {
    args: z.strictObject({ target: z.enum(['docs', 'seed-api']) }),
    result: z.object({ opened: z.boolean() }),
  },
} as const
