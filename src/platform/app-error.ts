/**
 * The renderer's one error model. Whatever failed (a DesktopApi call, the cache, a file), stores keep an
 * AppError and views show it with ErrorMessage, which says `errors.<code>` in the display language. The
 * host's own text (English, specific) is kept as `detail`, shown only on demand: it must never be the
 * sentence the accountant reads in the Japanese UI.
 */
import {
  API_ERROR_CODES,
  DesktopApiError,
  type ApiErrorCode,
  type FieldIssue,
} from '../../electron/shared/errors'

/** Codes only the renderer raises, beside the contract's. */
export const RENDERER_ERROR_CODES = [
  'cache_failed',
  'backup_invalid',
  'file_unreadable',
  'period_locked',
  'history_filing',
  'unexpected',
] as const
export type RendererErrorCode = (typeof RENDERER_ERROR_CODES)[number]
export type AppErrorCode = ApiErrorCode | RendererErrorCode

export const APP_ERROR_CODES: readonly AppErrorCode[] = [...API_ERROR_CODES, ...RENDERER_ERROR_CODES]

export interface AppError {
  code: AppErrorCode
  /** What the failing layer said (may be English): for "Details", never the main sentence. */
  detail: string | null
  fields: FieldIssue[]
  /** The service's own code for a refusal (e.g. OUTDATED_APP_TOKEN), when the host passed one on. */
  reason?: string
}

export function appError(
  code: AppErrorCode,
  detail: string | null = null,
  fields: FieldIssue[] = [],
): AppError {
  return { code, detail, fields }
}

/** Names of the errors IndexedDB and Dexie raise (Dexie keeps the DOMException's name). */
const CACHE_ERROR_NAMES = new Set([
  'DatabaseClosedError',
  'OpenFailedError',
  'VersionError',
  'UpgradeError',
  'InvalidStateError',
  'DataCloneError',
  'ConstraintError',
  'NotFoundError',
  'UnknownError',
  'ReadOnlyError',
  'TransactionInactiveError',
  'AbortError',
])

/** Any thrown value → AppError; `fallback` is the code for a plain Error of the caller's own work. */
export function toAppError(error: unknown, fallback: AppErrorCode = 'unexpected'): AppError {
  if (isAppError(error)) return error
  if (error instanceof DesktopApiError) {
    // The team workspace names its failure (`details.failure`): the view words it as the team's, not the
    // payment service's.
    const failure = error.details?.['failure']
    const reason = typeof failure === 'string' ? `team:${failure}` : error.details?.['reason']
    const shaped = appError(error.code, error.message, error.details?.fields ?? [])
    return typeof reason === 'string' ? { ...shaped, reason } : shaped
  }
  if (error instanceof Error || (typeof DOMException !== 'undefined' && error instanceof DOMException)) {
    const name = (error as Error).name
    const inner = (error as { inner?: { name?: string } }).inner?.name
    if (name === 'QuotaExceededError' || inner === 'QuotaExceededError')
      return appError('disk_full', error.message)
    if (name === 'AbortError' && !(error as { inner?: unknown }).inner)
      return appError('cancelled', error.message)
    if (CACHE_ERROR_NAMES.has(name) || (inner && CACHE_ERROR_NAMES.has(inner)))
      return appError('cache_failed', error.message)
    return appError(fallback, error.message)
  }
  return appError(fallback, String(error))
}

export function isAppError(value: unknown): value is AppError {
  if (typeof value !== 'object' || value === null) return false
  const v = value as Partial<AppError>
  return (
    typeof v.code === 'string' &&
    (APP_ERROR_CODES as readonly string[]).includes(v.code) &&
    'detail' in v &&
    Array.isArray(v.fields)
  )
}
