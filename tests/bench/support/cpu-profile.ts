/**
 * A page's JavaScript CPU profile over one step, through the DevTools protocol's Profiler: self time by
 * function (the renderer's main thread only; IndexedDB's backend threads are not in it, so a step's
 * Chromium CPU from /proc minus the profile's total is what those threads and the other processes spent).
 */
import { writeFileSync } from 'node:fs'
import type { Page } from '@playwright/test'

interface ProfileNode {
  id: number
  callFrame: { functionName: string; url: string; lineNumber: number }
}
interface Profile {
  nodes: ProfileNode[]
  samples: number[]
  timeDeltas: number[]
}

/** The profile's self time per function, largest first: `[label, ms]`. */
export function selfTimes(profile: Profile): [string, number][] {
  const label = new Map<number, string>()
  for (const n of profile.nodes) {
    const { functionName, url, lineNumber } = n.callFrame
    const file = url.split('/').pop() ?? ''
    label.set(n.id, `${functionName || '(anonymous)'} ${file}${file ? `:${lineNumber + 1}` : ''}`)
  }
  const byLabel = new Map<string, number>()
  profile.samples.forEach((id, i) => {
    const key = label.get(id) ?? '?'
    byLabel.set(key, (byLabel.get(key) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000)
  })
  return [...byLabel].sort((a, b) => b[1] - a[1])
}

/**
 * Starts profiling `page`; the returned stop() ends it, writes the raw profile to `path` (open it in the
 * DevTools' Performance panel) and returns the top `top` self times.
 */
export async function profilePage(page: Page, path: string, top = 30): Promise<() => Promise<string>> {
  const cdp = await page.context().newCDPSession(page)
  await cdp.send('Profiler.enable')
  await cdp.send('Profiler.setSamplingInterval', { interval: 500 })
  await cdp.send('Profiler.start')
  return async () => {
    const { profile } = (await cdp.send('Profiler.stop')) as unknown as { profile: Profile }
    await cdp.detach().catch(() => undefined)
    writeFileSync(path, JSON.stringify(profile))
    const times = selfTimes(profile)
    const total = times.reduce((n, [, ms]) => n + ms, 0)
    const idle = times.filter(([l]) => l.startsWith('(idle)')).reduce((n, [, ms]) => n + ms, 0)
    const lines = times.slice(0, top).map(([l, ms]) => `  ${ms.toFixed(0).padStart(7)} ms  ${l}`)
    return `main thread ${(total - idle).toFixed(0)} ms busy of ${total.toFixed(0)} ms; self time:\n${lines.join('\n')}`
  }
}
