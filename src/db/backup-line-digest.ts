/**
 * A backup's digest over its lines, computed from the file's bytes as they are read rather than from the
 * decoded text: the same value BackupDigest gives for the text of lines 1..k each followed by "\n", with no
 * line encoded again. A line break is the byte 0x0A in UTF-8 (never inside a multi-byte character), so
 * byte lines and text lines correspond one to one; a leading UTF-8 byte-order mark, which the decoder
 * drops, is dropped here too.
 */
import { BackupDigest } from './backup-digest'

const NEWLINE = 0x0a
const BATCH_BYTES = 64 * 1024
const BOM = [0xef, 0xbb, 0xbf]

export class LineDigest {
  private readonly digest = new BackupDigest()
  /** Bytes read and not yet hashed; the first `scanned` bytes of chunks[scanChunk] are lines taken. */
  private readonly chunks: Uint8Array[] = []
  private scanChunk = 0
  private scanned = 0
  /** Bytes of whole chunks taken and not yet hashed. */
  private pending = 0
  private lines = 0
  private start = true
  /** The last line taken had no line break (the file's last line): it is hashed with one. */
  private openLine = false

  /** No more lines will be taken: bytes read from now on are not kept. */
  private closed = false

  /** The file's bytes (after any gunzip), in order, as they are read. */
  push(bytes: Uint8Array): void {
    if (bytes.byteLength > 0 && !this.closed) this.chunks.push(bytes)
  }

  /** Ends the lines taken (the signature line follows them): what the file holds after is not kept. */
  close(): void {
    this.closed = true
    this.chunks.length = Math.min(this.chunks.length, this.scanChunk + 1)
  }

  /**
   * Takes lines up to `line` (1-based, in order) into the digest. Their bytes must have been pushed; a
   * line whose break is not there is the file's last line, taken with a break as the text digest did.
   */
  take(line: number): void {
    if (this.start) this.dropBom()
    while (this.lines < line) {
      const chunk = this.chunks[this.scanChunk]
      if (chunk === undefined) {
        this.openLine = true
        this.lines = line
        return
      }
      const at = chunk.indexOf(NEWLINE, this.scanned)
      if (at >= 0) {
        this.scanned = at + 1
        this.lines++
      } else {
        this.pending += chunk.byteLength
        this.scanChunk++
        this.scanned = 0
      }
    }
  }

  /** Whether enough bytes wait to be hashed for flush() to be worth an await. */
  get ready(): boolean {
    return this.pending >= BATCH_BYTES
  }

  /** Hashes the whole chunks taken so far. */
  async flush(): Promise<void> {
    const taken = this.chunks.splice(0, this.scanChunk)
    this.scanChunk = 0
    this.pending = 0
    for (const chunk of taken) await this.digest.update(chunk)
  }

  /** The digest of the lines taken (bytes pushed after them are not part of it), as 64 hex digits. */
  async hex(): Promise<string> {
    await this.flush()
    // An open last line took every chunk; otherwise the lines taken end inside the first one left.
    const last = this.chunks[0]
    if (last !== undefined && this.scanned > 0) await this.digest.update(last.subarray(0, this.scanned))
    if (this.openLine) await this.digest.update(new Uint8Array([NEWLINE]))
    return this.digest.hex()
  }

  /** Drops a byte-order mark at the very start of the bytes, once. */
  private dropBom(): void {
    this.start = false
    while (this.chunks.length > 1 && this.chunks[0]!.byteLength < BOM.length) {
      const [a, b] = this.chunks.splice(0, 2) as [Uint8Array, Uint8Array]
      const joined = new Uint8Array(a.byteLength + b.byteLength)
      joined.set(a, 0)
      joined.set(b, a.byteLength)
      this.chunks.unshift(joined)
    }
    const first = this.chunks[0]
    if (first === undefined || first.byteLength < BOM.length) return
    if (BOM.every((b, i) => first[i] === b)) this.chunks[0] = first.subarray(BOM.length)
  }
}
