/**
 * Lists of items that are the output of their item schema's parse in main (page-validation.ts). A list
 * page's result check (the contract, checked by the dispatcher) takes such a list as it is instead of
 * parsing each item a second time; any other list is parsed in full there. The proof is the list's
 * identity: only a list holding nothing but the parse's own outputs is recorded, and main never changes
 * such a list or its items afterwards.
 */
import { z } from 'zod'

const parsed = new WeakSet<object>()

/** Records `items`, each its schema's parse output, and returns the list. */
export function recordParsed<T extends object>(items: T[]): T[] {
  parsed.add(items)
  return items
}

/**
 * A list of `item`s, except that a list recorded by `recordParsed` passes as it is. Every other value is
 * parsed as `z.array(item)`, with its issues and its output.
 */
export function parsedOnce<S extends z.ZodType>(item: S): z.ZodType<z.output<S>[], unknown> {
  const schema = z.array(item)
  return z.unknown().transform((value, ctx): z.output<S>[] => {
    if (Array.isArray(value) && parsed.has(value)) return value as z.output<S>[]
    const result = schema.safeParse(value)
    if (result.success) return result.data
    for (const issue of result.error.issues)
      ctx.issues.push({ code: 'custom', message: issue.message, path: issue.path, input: value })
    return z.NEVER
  })
}
