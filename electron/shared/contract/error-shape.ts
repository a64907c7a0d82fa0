import { z } from 'zod'
import { API_ERROR_CODES, type ApiErrorShape } from '../errors'

export const fieldIssueSchema = z.object({ path: z.string(), message: z.string() })

export const apiErrorShapeSchema = z.object({
  code: z.enum(API_ERROR_CODES),
  message: z.string(),
  details: z
    .looseObject({
      fields: z.array(fieldIssueSchema).optional(),
      retryAfterMs: z.number().optional(),
      status: z.number().optional(),
    })
    .optional(),
}) satisfies z.ZodType<ApiErrorShape>
