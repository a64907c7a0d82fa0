/** Canary credentials, and the scan that finds them in any text, for every test that looks for a leak. */
import { Buffer } from 'node:buffer'
import { skeletonOf } from '../../electron/services/api-client/skeleton'

const b64 = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url')

/** A JWT-shaped app token (the signature is not checked by the client). */
export function makeJwt(claims: Record<string, unknown> = {}, signature = 'c2lnbmF0dXJl'): string {
  return `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64({ sub: 'app-token', ...claims })}.${signature}`
}

/** Credentials that must never appear in any error, log or result. */
export const CANARY_SECRET = 'sk_CANARY_secret_7f3a9b1c'
export const CANARY_TOKEN = makeJwt({ canary: 'CANARY_CLAIM' }, 'CANARY_SIGNATURE_d41d8cd9')
export const CANARY_CREDENTIALS = { secret: CANARY_SECRET, appToken: CANARY_TOKEN }

/**
 * Every part of the credentials that `text` gives away, as written or in another case or spacing
 * (`s k _ c a n a r y`): the text's letters and digits are compared in lower case, whatever stands between.
 */
export function canaryLeaks(text: string): string[] {
  const parts = [CANARY_SECRET, CANARY_TOKEN, ...CANARY_TOKEN.split('.'), 'CANARY']
  const skeleton = skeletonOf(text)
  return parts.filter((p) => text.includes(p) || skeleton.includes(skeletonOf(p)))
}
