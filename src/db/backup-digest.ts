/**
 * A backup's digest, which main signs: SHA-256 chained over 1 MiB blocks of the file's UTF-8 text
 * (state = SHA-256(state ‖ block)), closed with the last partial block and the length. Computed while the
 * text streams, in either direction, and the same however the text is cut into chunks; WebCrypto has no
 * incremental SHA-256, hence the chain.
 */
const BLOCK = 1024 * 1024

const sha256 = async (bytes: Uint8Array<ArrayBuffer>): Promise<Uint8Array<ArrayBuffer>> =>
  new Uint8Array(await crypto.subtle.digest('SHA-256', bytes))

export class BackupDigest {
  private state = new Uint8Array(32)
  /** The state, then the block being filled: hashed as one when the block is full. */
  private readonly buffer = new Uint8Array(32 + BLOCK)
  private filled = 0
  private length = 0
  private readonly encoder = new TextEncoder()

  async updateText(text: string): Promise<void> {
    await this.update(this.encoder.encode(text))
  }

  async update(bytes: Uint8Array): Promise<void> {
    this.length += bytes.byteLength
    let at = 0
    while (at < bytes.byteLength) {
      const take = Math.min(BLOCK - this.filled, bytes.byteLength - at)
      this.buffer.set(bytes.subarray(at, at + take), 32 + this.filled)
      this.filled += take
      at += take
      if (this.filled === BLOCK) {
        this.buffer.set(this.state, 0)
        this.state = await sha256(this.buffer)
        this.filled = 0
      }
    }
  }

  /** The digest as 64 hex digits. */
  async hex(): Promise<string> {
    const tail = new Uint8Array(32 + this.filled + 8)
    tail.set(this.state, 0)
    tail.set(this.buffer.subarray(32, 32 + this.filled), 32)
    new DataView(tail.buffer).setBigUint64(32 + this.filled, BigInt(this.length))
    return [...(await sha256(tail))].map((b) => b.toString(16).padStart(2, '0')).join('')
  }
}
