/**
 * The earliest and latest of many times, by a loop: `Math.min(...times)` passes every time as an argument
 * and overflows the call stack past about a hundred thousand of them (a large statement or order file).
 */
export function timeSpanOf<T>(
  items: Iterable<T>,
  timeOf: (item: T) => number,
): { first: number; last: number } {
  let first = Infinity
  let last = -Infinity
  for (const item of items) {
    const at = timeOf(item)
    if (at < first) first = at
    if (at > last) last = at
  }
  return { first, last }
}
