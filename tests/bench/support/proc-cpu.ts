/**
 * CPU time of process trees, read from /proc (Linux): what a benchmark's browser and web host spent, so a
 * figure can be judged by the work it took rather than by the wall time of a loaded machine.
 *
 * A tree's CPU time is the sum, over its live processes, of their own user and system time and that of
 * their children already reaped (`cutime`, `cstime`): a helper that exits inside the window is still
 * counted through its parent. Sampling a tree before and after a step and subtracting gives the step's cost.
 */
import { execFileSync } from 'node:child_process'
import { readFileSync, readdirSync } from 'node:fs'

export interface ProcInfo {
  ppid: number
  cmd: string
  /** utime + stime + cutime + cstime, in clock ticks. */
  ticks: number
}

let clockTicks: number | undefined

/** Clock ticks per second (`getconf CLK_TCK`, 100 on Linux unless the kernel says otherwise). */
export function ticksPerSecond(): number {
  if (clockTicks === undefined) {
    try {
      clockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100
    } catch {
      clockTicks = 100
    }
  }
  return clockTicks
}

/** CPU seconds of the calling thread so far (its own utime + stime, from /proc/thread-self/stat). */
export function threadCpuSeconds(): number {
  const stat = readFileSync('/proc/thread-self/stat', 'utf8')
  const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return (Number(rest[14 - 3] ?? 0) + Number(rest[15 - 3] ?? 0)) / ticksPerSecond()
}

/** Every process this user may read, by pid. */
export function readProcs(): Map<number, ProcInfo> {
  const procs = new Map<number, ProcInfo>()
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8')
      // Fields after "(comm)": state ppid … utime(14) stime(15) cutime(16) cstime(17), 1-based overall.
      const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      const field = (n: number): number => Number(rest[n - 3] ?? 0)
      const cmd = readFileSync(`/proc/${name}/cmdline`, 'utf8').replace(/\0/g, ' ')
      procs.set(Number(name), { ppid: field(4), cmd, ticks: field(14) + field(15) + field(16) + field(17) })
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return procs
}

/** Pids of the processes that are a root (by `isRoot`) or descend from one. */
export function treePids(
  procs: ReadonlyMap<number, ProcInfo>,
  isRoot: (pid: number, p: ProcInfo) => boolean,
): number[] {
  const inTree = (pid: number): boolean => {
    for (let p = pid, depth = 0; p > 1 && depth < 20; depth++) {
      const info = procs.get(p)
      if (!info) return false
      if (isRoot(p, info)) return true
      p = info.ppid
    }
    return false
  }
  return [...procs.keys()].filter(inTree)
}

/** CPU seconds the trees rooted where `isRoot` holds have used so far (see the file's comment). */
export function treeCpuSeconds(isRoot: (pid: number, p: ProcInfo) => boolean): number {
  const procs = readProcs()
  const ticks = treePids(procs, isRoot).reduce((sum, pid) => sum + (procs.get(pid)?.ticks ?? 0), 0)
  return ticks / ticksPerSecond()
}

/** A Chromium started with `profileDir` as its user data directory, and every process it spawned. */
export const chromiumOf =
  (profileDir: string) =>
  (_pid: number, p: ProcInfo): boolean =>
    p.cmd.includes(profileDir) && !p.cmd.includes('--type=')

/** One process (e.g. a spawned web host's wrapper) and every process it spawned. */
export const processOf =
  (rootPid: number) =>
  (pid: number): boolean =>
    pid === rootPid

/**
 * CPU ticks per "process kind / thread name" of the trees rooted where `isRoot` holds: a Chromium
 * process's kind is its `--type=` (the browser process has none), a thread's name is its `comm` (e.g.
 * "IndexedDB", "ThreadPoolForeg"). Threads that exit between two samples drop out; the totals of
 * treeCpuSeconds stay the figure, this says where inside it the time went.
 */
export function threadTicks(isRoot: (pid: number, p: ProcInfo) => boolean): Map<string, number> {
  const procs = readProcs()
  const out = new Map<string, number>()
  for (const pid of treePids(procs, isRoot)) {
    const info = procs.get(pid)
    if (!info) continue
    const kind = /--type=([\w-]+)/.exec(info.cmd)?.[1] ?? (/chrom/i.test(info.cmd) ? 'browser' : 'host')
    const sub = /--utility-sub-type=([\w.]+)/.exec(info.cmd)?.[1]
    const label = sub ? `${kind}(${sub.split('.').pop() ?? sub})` : kind
    let tasks: string[] = []
    try {
      tasks = readdirSync(`/proc/${pid}/task`)
    } catch {
      continue
    }
    for (const tid of tasks) {
      try {
        const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8')
        const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'))
        const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
        const ticks = Number(rest[11] ?? 0) + Number(rest[12] ?? 0)
        const key = `${label} / ${comm.replace(/\d+$/, '')}`
        out.set(key, (out.get(key) ?? 0) + ticks)
      } catch {
        // gone meanwhile
      }
    }
  }
  return out
}

/** The threads' CPU seconds between two threadTicks samples, largest first, as "name s" lines. */
export function threadCpuDelta(before: Map<string, number>, after: Map<string, number>): string {
  const rows: [string, number][] = []
  for (const [k, v] of after) {
    const d = (v - (before.get(k) ?? 0)) / ticksPerSecond()
    if (d >= 0.05) rows.push([k, d])
  }
  return rows
    .sort((a, b) => b[1] - a[1])
    .map(([k, d]) => `  ${d.toFixed(2).padStart(7)} s ${k}`)
    .join('\n')
}
