/**
 * What a POST body costs a page with and without DevTools attached: `npx tsx tests/bench/post-probe.ts
 * [posts] [bytes]` serves a page that posts `posts` bodies of `bytes` bytes (a Uint8Array, as the web
 * host's binary calls, or a JSON string), each answered when read, (a) in Chromium driven by Playwright, as
 * every bench page is, (b) in the same Chromium started alone, with no DevTools client, the page reporting
 * its time to the server. Prints a JSON line per run: wall ms (the page's), this process's CPU (the server,
 * and Playwright's handling of DevTools' messages in (a)), and the alone browser's CPU (from /proc).
 */
import { execSync, spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium } from '@playwright/test'

type Kind = 'json' | 'binary'
const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium'

const pageHtml = (kind: Kind, posts: number, size: number): string => `<!doctype html><script>
(async () => {
  const bytes = new Uint8Array(${size}); for (let i = 0; i < bytes.length; i++) bytes[i] = i % 251
  const text = JSON.stringify(Array.from({ length: ${size / 8} }, (_, i) => i * 1.5)).slice(0, ${size})
  const t = performance.now()
  for (let i = 0; i < ${posts}; i++) {
    const r = await fetch('/post', { method: 'POST', headers: { 'Content-Type': '${kind === 'binary' ? 'application/octet-stream' : 'application/json'}' }, body: ${kind === 'binary' ? 'bytes' : 'text'} })
    await r.text()
  }
  await fetch('/done?ms=' + Math.round(performance.now() - t), { method: 'POST' })
})()
</script>`

/** CPU seconds of a process group (the browser and its children), from /proc. */
function groupCpuSeconds(pid: number): number {
  const pids = execSync(`pgrep -g ${pid} || true`).toString().split('\n').filter(Boolean).map(Number)
  let sum = 0
  for (const p of pids) {
    try {
      const fields = (readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')[1] ?? '').split(' ')
      sum += (Number(fields[11]) + Number(fields[12])) / 100
    } catch {
      // the process ended meanwhile
    }
  }
  return sum
}

const ownCpu = (): number => {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1e6
}

async function main(): Promise<void> {
  const posts = Number(process.argv[2] ?? 240)
  const size = Number(process.argv[3] ?? 1_300_000)
  let onDone: ((ms: number) => void) | undefined
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x')
    if (url.pathname.startsWith('/page/'))
      return void res
        .writeHead(200, { 'Content-Type': 'text/html' })
        .end(pageHtml(url.pathname.slice(6) as Kind, posts, size))
    req.on('data', () => undefined)
    req.on('end', () => {
      res.end('{"ok":true}')
      if (url.pathname === '/done') onDone?.(Number(url.searchParams.get('ms')))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const finished = (): Promise<number> => new Promise((resolve) => (onDone = resolve))
  for (const kind of ['json', 'binary'] as const) {
    const browser = await chromium.launch({ executablePath: CHROMIUM })
    const page = await browser.newPage()
    let done = finished()
    let cpu = ownCpu()
    await page.goto(`${origin}/page/${kind}`)
    let ms = await done
    const driven = { how: 'playwright', kind, ms, thisProcessCpuS: +(ownCpu() - cpu).toFixed(2) }
    await browser.close()
    process.stdout.write(`${JSON.stringify(driven)}\n`)

    const profile = mkdtempSync(join(tmpdir(), 'closebook-post-probe-'))
    done = finished()
    cpu = ownCpu()
    // Chromium's sandbox refuses to start as root (as on these build machines) unless told not to use it.
    const noSandbox = process.getuid?.() === 0 ? ['--no-sandbox'] : []
    const flags = ['--headless=new', ...noSandbox, `--user-data-dir=${profile}`]
    const child = spawn(CHROMIUM, [...flags, `${origin}/page/${kind}`], { detached: true, stdio: 'ignore' })
    ms = await done
    const alone = {
      how: 'alone',
      kind,
      ms,
      thisProcessCpuS: +(ownCpu() - cpu).toFixed(2),
      browserCpuS: child.pid ? +groupCpuSeconds(child.pid).toFixed(2) : null,
    }
    const exited = new Promise((resolve) => child.once('exit', resolve))
    if (child.pid) process.kill(-child.pid, 'SIGTERM')
    await exited
    rmSync(profile, { recursive: true, force: true, maxRetries: 5 })
    process.stdout.write(`${JSON.stringify(alone)}\n`)
  }
  process.stdout.write(`${JSON.stringify({ loadAverage: readFileSync('/proc/loadavg', 'utf8').trim() })}\n`)
  server.close()
}

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`)
  process.exit(1)
})
