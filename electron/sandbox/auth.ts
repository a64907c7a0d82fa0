/** The sandbox's credentials: app tokens shaped like the service's, and comparisons that take constant time. */
import { Buffer } from 'node:buffer'
import { randomBytes, timingSafeEqual } from 'node:crypto'

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')

/** A JWT-shaped app token (the sandbox does not check signatures, only that the whole value matches). */
export function makeAppToken(subject: string): string {
  const iat = Math.floor(Date.now() / 1000)
  return `${b64url({ alg: 'HS256', typ: 'JWT' })}.${b64url({ iss: 'closebook-sandbox', sub: subject, iat, exp: 4102444800 })}.${randomBytes(24).toString('base64url')}`
}

/** Whether two texts are equal, in time that does not depend on where they differ. */
export function sameText(a: string, b: string): boolean {
  const ab = Buffer.from(a)
  const bb = Buffer.from(b)
  return ab.length === bb.length && timingSafeEqual(ab, bb)
}
