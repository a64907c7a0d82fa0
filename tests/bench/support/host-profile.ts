/**
 * This process's own JavaScript CPU profile over one step (node:inspector), for benches whose Node process
 * stands in for main: what main's side of a call costs (parsing, the contract's check, the handlers).
 */
import { writeFileSync } from 'node:fs'
import { Session } from 'node:inspector'
import { selfTimes } from './cpu-profile'

type Profile = Parameters<typeof selfTimes>[0]

function post<T>(session: Session, method: string, params?: object): Promise<T> {
  return new Promise((resolve, reject) =>
    session.post(method, params ?? {}, (error, result) => (error ? reject(error) : resolve(result as T))),
  )
}

/**
 * Starts profiling this process; the returned stop() ends it, writes the raw profile to `path` (DevTools'
 * Performance panel opens it) and returns the top `top` self times.
 */
export async function profileHost(path: string, top = 30): Promise<() => Promise<string>> {
  const session = new Session()
  session.connect()
  await post(session, 'Profiler.enable')
  await post(session, 'Profiler.setSamplingInterval', { interval: 500 })
  await post(session, 'Profiler.start')
  return async () => {
    const { profile } = await post<{ profile: Profile }>(session, 'Profiler.stop')
    session.disconnect()
    writeFileSync(path, JSON.stringify(profile))
    const times = selfTimes(profile)
    const total = times.reduce((n, [, ms]) => n + ms, 0)
    const idle = times.filter(([l]) => l.startsWith('(idle)')).reduce((n, [, ms]) => n + ms, 0)
    const lines = times.slice(0, top).map(([l, ms]) => `  ${ms.toFixed(0).padStart(7)} ms  ${l}`)
    return `host's main thread ${(total - idle).toFixed(0)} ms busy of ${total.toFixed(0)} ms; self time:\n${lines.join('\n')}`
  }
}
