import { afterAll, beforeAll } from 'vitest'
import { startSandbox, type RunningSandbox, type SandboxOptions } from '../../../../electron/sandbox/server'

export interface Answer<T = Record<string, unknown>> {
  status: number
  headers: Headers
  body: T
}

/** Starts a sandbox before the file's tests (and its later beforeAll hooks) and closes it after them. */
export function useSandbox(options: SandboxOptions): () => RunningSandbox {
  let running: RunningSandbox | undefined
  beforeAll(async () => {
    running = await startSandbox(options)
  })
  afterAll(async () => {
    await running?.close()
  })
  return () => {
    if (!running) throw new Error('the sandbox is started in beforeAll')
    return running
  }
}

export function authOf(sb: RunningSandbox): string {
  return `Bearer ${sb.secret}.${sb.appToken}`
}

export async function get<T = Record<string, unknown>>(
  sb: RunningSandbox,
  path: string,
  params: Record<string, string | number> = {},
  headers: Record<string, string> = { Authorization: authOf(sb) },
): Promise<Answer<T>> {
  const query = new URLSearchParams(
    Object.entries(params).map(([k, v]): [string, string] => [k, String(v)]),
  ).toString()
  const res = await fetch(`${sb.url}${path}${query ? `?${query}` : ''}`, { headers })
  const text = await res.text()
  return { status: res.status, headers: res.headers, body: JSON.parse(text) as T }
}

export interface ListBody<T> {
  items: T[]
  has_more: boolean
  total_hits: number
}

/** Every item of a list, page by page with the cursor; checks the paging invariants on the way. */
export async function listAll<T extends Record<string, unknown>>(
  sb: RunningSandbox,
  path: string,
  params: Record<string, string | number> = {},
  idField: 'id' | 'resource_id' = path.endsWith('charges') ? 'id' : 'resource_id',
): Promise<{ items: T[]; requests: number; totalHits: number }> {
  const items: T[] = []
  let cursor: string | undefined
  let requests = 0
  let totalHits = -1
  for (;;) {
    const page = await get<ListBody<T>>(sb, path, { limit: 100, ...params, ...(cursor ? { cursor } : {}) })
    requests++
    if (page.status !== 200) throw new Error(`HTTP ${page.status}: ${JSON.stringify(page.body)}`)
    if (totalHits === -1) totalHits = page.body.total_hits
    else if (page.body.total_hits !== totalHits) throw new Error('total_hits changed between pages')
    items.push(...page.body.items)
    if (!page.body.has_more) break
    const last = page.body.items[page.body.items.length - 1]
    if (!last) throw new Error('has_more with an empty page')
    cursor = String(last[idField])
  }
  return { items, requests, totalHits }
}
