/**
 * Dexie's errors lose their detail crossing page.evaluate: a bench function wrapped here throws one plain
 * Error naming the error and its inner error.
 */
export function reporting<A, R>(fn: (a: A) => Promise<R>): (a: A) => Promise<R> {
  return async (a) => {
    try {
      return await fn(a)
    } catch (error) {
      const e = error as { name?: string; message?: string; inner?: { name?: string; message?: string } }
      const inner = e.inner ? ` (${e.inner.name ?? ''}: ${e.inner.message ?? ''})` : ''
      throw new Error(`${e.name ?? 'Error'}: ${e.message ?? String(error)}${inner}`)
    }
  }
}
