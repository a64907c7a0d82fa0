/**
 * The team audit chain, verified where it is held (main or the renderer): each row's hash is the SHA-256 of
 * the same text the server hashed (closebook.audit_text), and each row names the previous row's hash.
 * WebCrypto only, so it runs on both sides of the bridge.
 */

export interface TeamAuditRow {
  merchantKey: string
  seq: number
  /** The server's clock, UTC, microseconds: `YYYY-MM-DDTHH:MM:SS.ffffffZ`. */
  at: string
  actor: string
  action: string
  month: string | null
  payload: string
  prevHash: string
  hash: string
}

export const GENESIS_HASH = '0'.repeat(64)

export type ChainCheck =
  | { ok: true; verifiedThrough: number; head: string }
  | { ok: false; verifiedThrough: number; brokenAt: number; reason: 'gap' | 'link' | 'hash' }

/** The text the server's audit_text() builds; `merchantKey` is the server's internal merchant number. */
export function auditText(row: TeamAuditRow): string {
  return [
    row.prevHash,
    row.merchantKey,
    String(row.seq),
    row.at,
    row.actor,
    row.action,
    row.month ?? '',
    row.payload,
  ].join('\n')
}

async function sha256Hex(text: string): Promise<string> {
  const digest = await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(text))
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('')
}

/**
 * Checks rows in order from `from` (the last verified seq and hash, or the start): numbers follow without a
 * gap, each row links to the previous hash, and each hash is recomputed. Stops at the first break and names it.
 */
export async function verifyChain(
  rows: readonly TeamAuditRow[],
  from: { seq: number; hash: string } = { seq: 0, hash: GENESIS_HASH },
): Promise<ChainCheck> {
  let seq = from.seq
  let hash = from.hash
  for (const row of rows) {
    if (row.seq !== seq + 1) return { ok: false, verifiedThrough: seq, brokenAt: seq + 1, reason: 'gap' }
    if (row.prevHash !== hash) return { ok: false, verifiedThrough: seq, brokenAt: row.seq, reason: 'link' }
    if ((await sha256Hex(auditText(row))) !== row.hash) {
      return { ok: false, verifiedThrough: seq, brokenAt: row.seq, reason: 'hash' }
    }
    seq = row.seq
    hash = row.hash
  }
  return { ok: true, verifiedThrough: seq, head: hash }
}
