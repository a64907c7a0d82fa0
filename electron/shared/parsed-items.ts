/**
 * Items that are the output of their item schema's parse in main (page-validation.ts). A list page's
 * result check (the contract, checked by the dispatcher) takes such an item as it is instead of parsing
 * it a second time; anything else is parsed in full there. The proof is the object's identity: only the
 * parse's own output is recorded, and main never changes an item after its parse.
 */
import { z } from 'zod'

const parsed = new WeakSet<object>()

/** Records `item` as its schema's parse output and returns it. */
export function recordParsed<T extends object>(item: T): T {
  parsed.add(item)
  return item
}

/**
 * `schema`, except that a value recorded by `recordParsed` passes as it is. Every other value is parsed
 * by `schema`, with its issues and its output.
 */
export function parsedOnce<S extends z.ZodType>(schema: S): z.ZodType<z.output<S>, unknown> {
  return z.unknown().transform((value, ctx): z.output<S> => {
    if (typeof value === 'object' && value !== null && parsed.has(value)) return value as z.output<S>
    const result = schema.safeParse(value)
    if (result.success) return result.data
    for (const issue of result.error.issues)
      ctx.issues.push({ code: 'custom', message: issue.message, path: issue.path, input: value })
    return z.NEVER
  })
}
