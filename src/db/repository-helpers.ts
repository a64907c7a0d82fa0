/** Shared by the repositories: a page or plan never mixes connections; per-connection key ranges. */
import Dexie from 'dexie'

export function assertSameConnection(
  connectionId: string,
  rows: readonly { connectionId: string }[],
  what: string,
): void {
  const stray = rows.find((r) => r.connectionId !== connectionId)
  if (stray) {
    throw new Error(`${what}: expected connection ${connectionId}, got ${stray.connectionId}`)
  }
}

/** Bounds of every `[connectionId+x]` key of one connection, whatever type x has. */
export function connectionBounds(connectionId: string): [[string, unknown], [string, unknown]] {
  return [
    [connectionId, Dexie.minKey],
    [connectionId, Dexie.maxKey],
  ]
}
