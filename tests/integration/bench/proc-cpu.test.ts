import { spawn } from 'node:child_process'
import { afterEach, describe, expect, it } from 'vitest'
import { Worker } from 'node:worker_threads'
import {
  processOf,
  readProcs,
  threadCpuSeconds,
  treeCpuSeconds,
  treePids,
} from '../../bench/support/proc-cpu'
import { scaleParts, scaleRecords } from '../../bench/scale-bench'

/** Spends `ms` of its own CPU time (not wall time: the machine may be loaded), then exits. */
const BUSY = (ms: number): string =>
  `const s = process.cpuUsage(); while ((process.cpuUsage(s).user + process.cpuUsage(s).system) / 1000 < ${ms}) {}`

const children: number[] = []
afterEach(() => {
  for (const pid of children.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL')
    } catch {
      // exited already
    }
  }
})

async function until(check: () => boolean, timeoutMs = 60_000): Promise<void> {
  const end = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out waiting')
    await new Promise((r) => setTimeout(r, 50))
  }
}

describe('CPU time of a process tree from /proc', () => {
  it("counts a child that worked and exited, through its parent's reaped time", async () => {
    // bash runs a busy node child to its end, then waits: the child is gone, its time is bash's cutime.
    const shell = spawn('bash', ['-c', `"${process.execPath}" -e '${BUSY(400)}'; sleep 30`], {
      stdio: 'ignore',
    })
    const root = shell.pid ?? -1
    children.push(root)
    const before = treeCpuSeconds(processOf(root))
    await until(() => {
      const procs = readProcs()
      const tree = treePids(procs, processOf(root))
      return (
        tree.length > 0 &&
        tree.every((pid) => !procs.get(pid)?.cmd.includes('cpuUsage')) &&
        tree.some((pid) => procs.get(pid)?.cmd.includes('sleep'))
      )
    })
    const spent = treeCpuSeconds(processOf(root)) - before
    expect(spent).toBeGreaterThanOrEqual(0.35)
    expect(spent).toBeLessThan(5)
  }, 90_000)

  it('counts nothing for a tree that does not exist', () => {
    expect(treeCpuSeconds(processOf(-42))).toBe(0)
  })
})

describe('CPU time of one thread from /proc', () => {
  it("counts the calling thread's own work, not another thread's", async () => {
    const before = threadCpuSeconds()
    // Another thread works for 300 ms of CPU: none of it is this thread's.
    const busy = new Worker(`${BUSY(300)}; require('node:worker_threads').parentPort.postMessage(0)`, {
      eval: true,
    })
    await new Promise((resolve) => busy.once('message', resolve))
    await busy.terminate()
    expect(threadCpuSeconds() - before).toBeLessThan(0.2)
    const start = threadCpuSeconds()
    const s = process.hrtime.bigint()
    while (threadCpuSeconds() - start < 0.3 && process.hrtime.bigint() - s < 60_000_000_000n) {
      // this thread's own work
    }
    expect(threadCpuSeconds() - start).toBeGreaterThanOrEqual(0.3)
  })
})

describe('the scale suite size', () => {
  it('is 2M by default, 20k quick, and what BENCH_SCALE_RECORDS says', () => {
    expect(scaleRecords(false, {})).toBe(2_000_000)
    expect(scaleRecords(true, {})).toBe(20_000)
    expect(scaleRecords(false, { BENCH_SCALE_RECORDS: '50_000' })).toBe(50_000)
  })

  it('refuses a size that is not a whole number of records, naming it', () => {
    expect(() => scaleRecords(false, { BENCH_SCALE_RECORDS: '2M' })).toThrow(/not "2M"/)
    expect(() => scaleRecords(false, { BENCH_SCALE_RECORDS: '10' })).toThrow(/at least 1000/)
  })
})

describe('the scale suite parts', () => {
  const known = ['ledger', 'workbook', 'month-end', 'backup', 'upgrade']

  it('runs every part by default, and only those BENCH_SCALE_PARTS lists', () => {
    expect([...scaleParts(known, {})]).toEqual(known)
    expect([...scaleParts(known, { BENCH_SCALE_PARTS: ' ' })]).toEqual(known)
    expect([...scaleParts(known, { BENCH_SCALE_PARTS: 'ledger, backup' })]).toEqual(['ledger', 'backup'])
  })

  it('refuses a part it does not know, naming it and the parts there are', () => {
    expect(() => scaleParts(known, { BENCH_SCALE_PARTS: 'ledger,restore' })).toThrow(
      /no part "restore": the parts are ledger, workbook, month-end, backup, upgrade/,
    )
  })
})
