import { z } from 'zod'

/** A file name the user will see: no path separators, no control characters, sensible length. */
export const safeFileNameSchema = z
  .string()
  .min(1)
  .max(120)
  .refine((n) => !/[/\\:*?"<>|]/.test(n) && ![...n].some((c) => c.charCodeAt(0) < 32), {
    message: 'expected a file name without path separators or control characters',
  })
  .refine((n) => n !== '.' && n !== '..' && !n.startsWith('.'), 'must not start with a dot')

export const fileMediaTypeSchema = z.enum([
  'application/json',
  'text/csv',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
])

/** Text files are UTF-8; Shift_JIS is for the Japanese accounting programs that import only that. */
export const fileEncodingSchema = z.enum(['utf-8', 'shift_jis'])
export type FileTextEncoding = z.infer<typeof fileEncodingSchema>

export const fileIdSchema = z.string().regex(/^[A-Za-z0-9_-]{16,64}$/, 'expected a file id')

/** Where a finished file went: the desktop saved it where the user chose; the web host offers a download. */
export const deliveredFileSchema = z.discriminatedUnion('savedTo', [
  z.object({ savedTo: z.literal('path'), path: z.string(), fileName: z.string() }),
  z.object({
    savedTo: z.literal('download'),
    downloadUrl: z.string().startsWith('/download/'),
    fileName: z.string(),
  }),
  z.object({ savedTo: z.literal('cancelled'), fileName: z.string() }),
])
export type DeliveredFile = z.infer<typeof deliveredFileSchema>

export const MAX_FILE_CHUNK_CHARS = 4 * 1024 * 1024

/**
 * Writing a text file the renderer produces (backups, CSV): begin, append chunks, finish. The file is
 * written to a temporary name and only moved into place, whole, at finish; cancel or failure leaves nothing.
 */
export const filesContract = {
  'files:begin': {
    args: z.strictObject({
      suggestedName: safeFileNameSchema,
      mediaType: fileMediaTypeSchema,
      encoding: fileEncodingSchema.optional(),
    }),
    result: z.object({ fileId: fileIdSchema }),
  },
  'files:append': {
    args: z.strictObject({ fileId: fileIdSchema, chunk: z.string().max(MAX_FILE_CHUNK_CHARS) }),
    result: z.object({ bytesWritten: z.number().int().nonnegative() }),
  },
  'files:finish': { args: z.strictObject({ fileId: fileIdSchema }), result: deliveredFileSchema },
  'files:cancel': {
    args: z.strictObject({ fileId: fileIdSchema }),
    result: z.object({ cancelled: z.boolean() }),
  },
} as const
