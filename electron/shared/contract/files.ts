import { z } from 'zod'
import { FILE_NAME_REASON, fileNameProblem, fileNameProblemText, type FileExtensions } from '../file-name'

/**
 * A file name the user will see, under the app's one rule (`file-name.ts`): no path, no control or
 * invisible characters, no reserved device name, and, given `extensions`, only one of those.
 */
export function fileNameSchema(extensions?: FileExtensions): z.ZodType<string> {
  return z.string().superRefine((name, ctx) => {
    const problem = fileNameProblem(name, extensions)
    if (problem)
      ctx.addIssue({
        code: 'custom',
        message: fileNameProblemText(problem, extensions),
        params: { reason: FILE_NAME_REASON },
      })
  })
}

export const safeFileNameSchema = fileNameSchema()

export const fileMediaTypeSchema = z.enum([
  'application/json',
  'text/csv',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  'application/gzip',
])

export type FileMediaType = z.infer<typeof fileMediaTypeSchema>

/** The extensions a file of each media type may have (Yayoi's journal import is a `.txt` CSV). */
export const FILE_EXTENSIONS: Readonly<Record<FileMediaType, FileExtensions>> = {
  'application/json': ['.json', '.jsonl'],
  'text/csv': ['.csv', '.txt'],
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': ['.xlsx'],
  'application/gzip': ['.gz'],
}

/**
 * How a file's chunks become its bytes. Text files are UTF-8; Shift_JIS is for the Japanese accounting
 * programs that import only that. `base64`: each chunk is the base64 of the next bytes of a binary file
 * (a gzip backup), whole four-character groups, and the only encoding of an `application/gzip` file.
 */
export const fileEncodingSchema = z.enum(['utf-8', 'shift_jis', 'base64'])
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
    args: z
      .strictObject({
        suggestedName: safeFileNameSchema,
        mediaType: fileMediaTypeSchema,
        encoding: fileEncodingSchema.optional(),
      })
      .superRefine(({ suggestedName, mediaType, encoding }, ctx) => {
        if ((mediaType === 'application/gzip') !== (encoding === 'base64'))
          ctx.addIssue({
            code: 'custom',
            path: ['encoding'],
            message: 'an application/gzip file is sent as base64, and only such a file',
          })
        const extensions = FILE_EXTENSIONS[mediaType]
        if (fileNameProblem(suggestedName, extensions) === 'extension')
          ctx.addIssue({
            code: 'custom',
            path: ['suggestedName'],
            message: fileNameProblemText('extension', extensions),
            params: { reason: FILE_NAME_REASON },
          })
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
