/**
 * The one error shape that crosses the bridge (IPC or HTTP): `{ code, message, details? }`.
 * Never a stack trace, never a secret: messages are written for the accountant and name the field at fault.
 */
import type { z } from 'zod'

export const API_ERROR_CODES = [
  'invalid_argument',
  'unknown_call',
  'forbidden_sender',
  'no_keychain',
  'keychain_timeout',
  'not_found',
  'conflict',
  'unauthorized',
  'forbidden',
  'network',
  'timeout',
  'tls',
  'rate_limited',
  'server_error',
  'malformed_response',
  'cancelled',
  'disk_full',
  'internal',
] as const
export type ApiErrorCode = (typeof API_ERROR_CODES)[number]

export interface FieldIssue {
  path: string
  message: string
}

export interface ApiErrorShape {
  code: ApiErrorCode
  message: string
  details?: { fields?: FieldIssue[]; retryAfterMs?: number; status?: number; [key: string]: unknown }
}

/** Thrown on both sides of the bridge; `toShape()` is all that ever crosses it. */
export class DesktopApiError extends Error {
  readonly code: ApiErrorCode
  readonly details: ApiErrorShape['details']

  constructor(code: ApiErrorCode, message: string, details?: ApiErrorShape['details']) {
    super(message)
    this.name = 'DesktopApiError'
    this.code = code
    this.details = details
  }

  toShape(): ApiErrorShape {
    return this.details === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, details: this.details }
  }

  static fromShape(shape: ApiErrorShape): DesktopApiError {
    return new DesktopApiError(shape.code, shape.message, shape.details)
  }
}

/** Zod issues → `{ path, message }` list, and one sentence that names every field. */
export function fieldIssuesFromZod(error: z.core.$ZodError, prefix = ''): FieldIssue[] {
  return error.issues.map((issue) => ({
    path: [prefix, ...issue.path.map(String)].filter((p) => p !== '').join('.') || '(root)',
    message: issue.message,
  }))
}

export function invalidArgument(what: string, fields: FieldIssue[], reason?: string): DesktopApiError {
  const list = fields.map((f) => `${f.path}: ${f.message}`).join('; ')
  return new DesktopApiError(
    'invalid_argument',
    `Invalid ${what}: ${list}`,
    reason ? { fields, reason } : { fields },
  )
}

/** The `reason` a schema's own check named (`params.reason` of a custom issue), passed on to the renderer. */
export function reasonFromZod(error: z.core.$ZodError): string | undefined {
  for (const issue of error.issues) {
    const reason =
      issue.code === 'custom' ? (issue.params as { reason?: unknown } | undefined)?.reason : undefined
    if (typeof reason === 'string') return reason
  }
  return undefined
}

/** The envelope each transport carries, so that errors keep their code across IPC and HTTP. */
export type CallOutcome = { ok: true; value: unknown } | { ok: false; error: ApiErrorShape }
