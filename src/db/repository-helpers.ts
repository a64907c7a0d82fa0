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

/** `items` grouped by `keyOf`, each group in the order given, the groups in the order first met. */
export function groupBy<T, K>(items: Iterable<T>, keyOf: (item: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>()
  for (const item of items) {
    const key = keyOf(item)
    const group = groups.get(key)
    if (group) group.push(item)
    else groups.set(key, [item])
  }
  return groups
}

/** Bounds of every `[connectionId+x]` key of one connection, whatever type x has. */
export function connectionBounds(connectionId: string): [[string, unknown], [string, unknown]] {
  return [
    [connectionId, Dexie.minKey],
    [connectionId, Dexie.maxKey],
  ]
}

/**
 * Records read per request when a step reads many: one request's records are cloned on the UI thread in
 * one task, so thousands in one request hold it for a long task.
 */
const READ_CHUNK = 500

/** `read` over `items` a chunk at a time (READ_CHUNK), results in order. */
export async function readInChunks<T, R>(
  items: readonly T[],
  read: (chunk: T[]) => Promise<R[]>,
): Promise<R[]> {
  const out: R[] = []
  for (let i = 0; i < items.length; i += READ_CHUNK) out.push(...(await read(items.slice(i, i + READ_CHUNK))))
  return out
}

/** Rows by time, then id: the order of a `[connectionId+createdAt]` read with ties by id. */
export const byTimeThenId = <T extends { createdAt: number; id: string }>(a: T, b: T): number =>
  a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
