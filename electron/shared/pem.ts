/**
 * A private CA's certificate(s) as PEM text: one or more `CERTIFICATE` blocks of base64 and nothing else.
 * The check names what is wrong without echoing the text (it is not secret, but it is long and pasted).
 */
const BLOCK = /-----BEGIN CERTIFICATE-----\r?\n([A-Za-z0-9+/=\r\n]+?)\r?\n?-----END CERTIFICATE-----/g

export type PemProblem = 'too_large' | 'not_pem' | 'private_key' | 'other_text' | 'no_certificate'

/** A CA file (a chain of a few certificates) is far smaller than this. */
export const PEM_MAX_CHARS = 65_536

export const PEM_PROBLEM_MESSAGES: Record<PemProblem, string> = {
  too_large: 'a CA certificate file is at most 64 KiB',
  not_pem: 'expected PEM text starting with -----BEGIN CERTIFICATE-----',
  private_key: 'this is a private key; give the CA certificate (BEGIN CERTIFICATE) instead',
  other_text: 'expected only CERTIFICATE blocks (BEGIN/END CERTIFICATE), found other text',
  no_certificate: 'the CERTIFICATE block holds no valid base64 certificate',
}

/** Why `text` is not PEM certificate text, or null when it is. */
export function pemCertificateProblem(text: string): PemProblem | null {
  if (text.length > PEM_MAX_CHARS) return 'too_large'
  const trimmed = text.trim()
  if (/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(trimmed)) return 'private_key'
  if (!trimmed.startsWith('-----BEGIN')) return 'not_pem'
  let blocks = 0
  const rest = trimmed.replace(BLOCK, (_whole, body: string) => {
    const base64 = body.replace(/\s+/g, '')
    if (base64.length >= 64 && base64.length % 4 === 0) blocks += 1
    return ''
  })
  if (rest.trim() !== '') return 'other_text'
  if (blocks === 0) return 'no_certificate'
  return null
}
