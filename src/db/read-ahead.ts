/**
 * Pages read one ahead: the next page is asked for as soon as one is handed out, so IndexedDB reads it
 * while the caller formats and writes the last one. At most two pages are held; the order is the source's.
 */
export async function* readAhead<T>(source: AsyncIterable<T>): AsyncGenerator<T> {
  const pages = source[Symbol.asyncIterator]()
  let next = pages.next()
  try {
    for (;;) {
      const page = await next
      if (page.done) return
      next = pages.next()
      next.catch(() => undefined) // a read ahead that fails is thrown where it is awaited, if ever
      yield page.value
    }
  } finally {
    // A caller that stops early (cancel, a failed write) leaves no read running: the one under way ends,
    // then the source is closed.
    await next.catch(() => undefined)
    await pages.return?.()
  }
}
