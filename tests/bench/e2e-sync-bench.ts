/**
 * A first sync as the user gets it: the BUILT web host (out/main/web.js, run under scripts/with-keychain.sh
 * so the connection's secret goes to a real keychain) in Debian's Chromium with its real IndexedDB on disk,
 * against the payment API sandbox (electron/sandbox) at the seed's limits (rate scale 1), driven through
 * the UI: "Add a connection" with the sandbox's URL and credentials, then "Sync", until "Up to date.".
 *
 * Method. The sandbox runs in this process; every response it sends is recorded (diagnostics_channel) with
 * its Route bucket key, as the sandbox counts it. The ceiling is what the API allows for the pages this
 * sync actually needed: each Route bucket starts full (burst 30) and refills at 1,200 a minute (20 a
 * second), buckets are independent, so a route that needed n pages cannot finish before (n − 30) / 20 s
 * after the first request; the ceiling is the largest of those. `sync.e2e_ceiling_ratio` = ceiling /
 * measured, the measured time running from the click on "Sync" to "Up to date." on screen (so it includes
 * planning, the last page's write and the UI catching up). The UI thread's long tasks (PerformanceObserver
 * 'longtask', > 50 ms by definition) inside that window are counted, with the longest and their sum.
 * The cache is checked afterwards: its history and charge rows must equal what the sandbox holds.
 * `sync.e2e_cpu_s_per_10k` is the CPU time (from /proc) of Chromium's processes and the web host's in the
 * same window, per 10k records: the work per record, which does not move with the machine's load.
 *
 * Size: 50,000 charges over 3 stores (about 104k history and charge records); E2E_SYNC_CHARGES=N (or
 * `--quick`: 10,000) for iteration. E2E_SYNC_SKIP_BUILD=1 reuses an existing out/ (else it is built);
 * E2E_SYNC_WEB_ENTRY=path runs another build (never rebuilt), e.g. two builds side by side under one load.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { subscribe, unsubscribe } from 'node:diagnostics_channel'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { createInterface } from 'node:readline'
import type { Locator, Page } from '@playwright/test'
import { SEED_ROUTE } from '../../electron/sandbox/rate-limits'
import { startSandbox } from '../../electron/sandbox/server'
import { measured, type MetricMap } from './metrics'
import { launchBenchChromium } from './support/chromium-runner'
import {
  chromiumOf,
  processOf,
  threadCpuDelta,
  threadTicks,
  treeCpuSeconds,
  type ProcInfo,
} from './support/proc-cpu'

const ROOT = resolve(__dirname, '../..')
/** E2E_SYNC_WEB_ENTRY: another build of the web host (an A/B comparison of two builds under one load). */
const WEB_ENTRY = resolve(process.env['E2E_SYNC_WEB_ENTRY'] ?? join(ROOT, 'out/main/web.js'))
const LABEL = 'E2E bench merchant'

interface LongTask {
  start: number
  duration: number
}

/**
 * E2E_SYNC_IDB_OPS=1: counts the page's IndexedDB requests by kind and store (index included), and
 * transactions by mode, during the sync, to see what the app asks of the browser's IndexedDB besides the
 * records themselves; and per store, the characters of JSON its puts wrote ("chars put") and the index
 * entries they wrote ("index entries put": one per index whose key the value has, one per element of a
 * multi-entry index's array), which do not move with the machine's load as CPU time does. Runs in the
 * page (an init script).
 */
function countIdbRequests(): void {
  const ops = new Map<string, number>()
  ;(globalThis as unknown as { __idbOps: Map<string, number> }).__idbOps = ops
  const bump = (k: string, n = 1) => ops.set(k, (ops.get(k) ?? 0) + n)
  const has = (value: unknown, path: string) =>
    (value as Record<string, unknown> | null)?.[path] !== undefined
  const weigh = (store: IDBObjectStore, value: unknown) => {
    bump(`chars put ${store.name}`, JSON.stringify(value)?.length ?? 0)
    let entries = 0
    for (const name of Array.from(store.indexNames)) {
      const index = store.index(name)
      const path = index.keyPath
      if (Array.isArray(path)) entries += path.every((p) => has(value, p)) ? 1 : 0
      else if (index.multiEntry) {
        const keys = (value as Record<string, unknown> | null)?.[path]
        entries += Array.isArray(keys) ? keys.length : keys === undefined ? 0 : 1
      } else entries += has(value, path) ? 1 : 0
    }
    bump(`index entries put ${store.name}`, entries)
  }
  const wrap = (proto: object, owner: 'store' | 'index', names: string[]) => {
    for (const name of names) {
      const target = proto as Record<string, (...a: unknown[]) => unknown>
      const original = target[name]
      if (!original) continue
      target[name] = function (this: IDBObjectStore | IDBIndex, ...args: unknown[]) {
        const store = owner === 'store' ? (this as IDBObjectStore).name : (this as IDBIndex).objectStore.name
        bump(`${name} ${store}${owner === 'index' ? ` [${(this as IDBIndex).name}]` : ''}`)
        if (owner === 'store' && (name === 'put' || name === 'add')) weigh(this as IDBObjectStore, args[0])
        return original.apply(this, args)
      }
    }
  }
  wrap(IDBObjectStore.prototype, 'store', [
    'put',
    'add',
    'get',
    'getAll',
    'getAllKeys',
    'count',
    'openCursor',
    'openKeyCursor',
    'delete',
    'clear',
  ])
  wrap(IDBIndex.prototype, 'index', ['get', 'getAll', 'getAllKeys', 'count', 'openCursor', 'openKeyCursor'])
  const proto = IDBDatabase.prototype as unknown as Record<string, (...a: unknown[]) => unknown>
  const transaction = proto['transaction']
  proto['transaction'] = function (this: IDBDatabase, ...args: unknown[]) {
    bump(`transaction ${typeof args[1] === 'string' ? args[1] : 'readonly'}`)
    return transaction?.apply(this, args)
  }
}

/** The time the API allows for `pagesByRoute` at the seed's Route limits (see the method above). */
export function ceilingSeconds(pagesByRoute: ReadonlyMap<string, number>): number {
  const perSecond = SEED_ROUTE.perMinute / 60
  let worst = 0
  for (const pages of pagesByRoute.values()) worst = Math.max(worst, (pages - SEED_ROUTE.burst) / perSecond)
  return Math.max(0, worst)
}

/** Starts the built web host in its own process group (a keychain session wraps it); resolves its URL. */
/**
 * Builds the app (electron-vite build) for the web host the suites start, unless E2E_SYNC_WEB_ENTRY names
 * another build or E2E_SYNC_SKIP_BUILD=1 asks to reuse an existing out/.
 */
export function buildWebHost(log: (s: string) => void): void {
  if (process.env['E2E_SYNC_WEB_ENTRY']) return
  if (process.env['E2E_SYNC_SKIP_BUILD'] === '1' && existsSync(WEB_ENTRY)) return
  log('building the app (electron-vite build)')
  const built = spawnSync('npx', ['electron-vite', 'build'], { cwd: ROOT, stdio: ['ignore', 2, 2] })
  if (built.status !== 0) throw new Error('electron-vite build failed')
}

export async function startWebHost(dataDir: string): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(
    'bash',
    [
      join(ROOT, 'scripts/with-keychain.sh'),
      process.execPath,
      // E2E_SYNC_HOST_PROFILE=<dir>: the web host writes a V8 CPU profile there when it exits.
      ...(process.env['E2E_SYNC_HOST_PROFILE']
        ? ['--cpu-prof', `--cpu-prof-dir=${process.env['E2E_SYNC_HOST_PROFILE']}`]
        : []),
      WEB_ENTRY,
      '--no-open',
      '--port',
      '0',
    ].concat(['--data-dir', dataDir]),
    { stdio: ['ignore', 'pipe', 'pipe'], detached: true },
  )
  let stderr = ''
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()))
  const url = await new Promise<string>((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`web host did not start: ${stderr}`)), 60_000)
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
      if (!/^http:\/\/127\.0\.0\.1:\d+\/\?token=/.test(line)) return
      clearTimeout(timer)
      ok(line.trim())
    })
    child.once('exit', (code) => fail(new Error(`web host exited with ${code}: ${stderr}`)))
  })
  return { url, child }
}

/**
 * E2E_SYNC_PROFILE=1: a CPU profile of the page during the sync, summarised as the functions with the most
 * self time (idle and GC named as such): where the UI thread's time goes, for choosing what to optimise.
 */
export async function startProfile(page: Page): Promise<() => Promise<string>> {
  const cdp = await page.context().newCDPSession(page)
  await cdp.send('Profiler.enable')
  await cdp.send('Profiler.setSamplingInterval', { interval: 1000 })
  await cdp.send('Profiler.start')
  return async () => {
    const { profile } = await cdp.send('Profiler.stop')
    // E2E_SYNC_PROFILE=<file>.cpuprofile keeps the whole profile too (DevTools opens it).
    const out = process.env['E2E_SYNC_PROFILE'] ?? ''
    if (out.endsWith('.cpuprofile')) writeFileSync(out, JSON.stringify(profile))
    const byId = new Map(profile.nodes.map((n) => [n.id, n]))
    const selfUs = new Map<string, number>()
    const deltas = profile.timeDeltas ?? []
    ;(profile.samples ?? []).forEach((id, i) => {
      const f = byId.get(id)?.callFrame
      const name = f
        ? `${f.functionName || '(anonymous)'} ${f.url.split('/').pop() ?? ''}:${f.lineNumber}`
        : '?'
      selfUs.set(name, (selfUs.get(name) ?? 0) + (deltas[i + 1] ?? 0))
    })
    const total = [...selfUs.values()].reduce((a, b) => a + b, 0)
    return [...selfUs]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 25)
      .map(
        ([name, us]) =>
          `  ${(us / 1000).toFixed(0).padStart(7)} ms ${((100 * us) / total).toFixed(1).padStart(5)} % ${name}`,
      )
      .join('\n')
  }
}

export async function stopGroup(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.pid === undefined) return
  const exited = new Promise((r) => child.once('exit', r))
  try {
    process.kill(-child.pid, 'SIGTERM')
  } catch {
    return
  }
  await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000))])
}

/**
 * The save goes through the keychain, whose calls main bounds (`keychain_timeout`): a save shows the Sync
 * button or an error well within a minute, and an error ends the bench with what the screen said.
 */
async function savedOrFailed(page: Page, syncButton: Locator): Promise<void> {
  const error = page.getByTestId('error-message')
  await Promise.race([
    syncButton.waitFor({ timeout: 90_000 }),
    error.waitFor({ timeout: 90_000 }).then(async () => {
      throw new Error(`saving the connection failed: ${await error.innerText()}`)
    }),
  ])
}

export async function benchE2eSync({ quick }: { quick: boolean }): Promise<MetricMap> {
  const charges = Number(process.env['E2E_SYNC_CHARGES'] ?? (quick ? 10_000 : 50_000))
  const log = (s: string): void => void process.stderr.write(`bench: e2e-sync: ${s}\n`)
  buildWebHost(log)
  const sandbox = await startSandbox({ seed: 2323, stores: 3, records: charges, rateScale: 1 })
  const expected = sandbox.snapshot()
  const host = `127.0.0.1:${new URL(sandbox.url).port}`
  const served: { at: number; route: string; status: number }[] = []
  const onResponse = (message: unknown): void => {
    const { request, response } = message as { request: IncomingMessage; response: ServerResponse }
    if (request.headers.host !== host) return
    const path = new URL(request.url ?? '/', 'http://x').pathname
    served.push({
      at: Date.now(),
      route: path.replace(/^\/stores\/[^/]+\//, '/stores/{storeId}/'),
      status: response.statusCode,
    })
  }
  subscribe('http.server.response.finish', onResponse)
  const work = mkdtempSync(join(tmpdir(), 'closebook-e2e-sync-'))
  let web: { url: string; child: ChildProcess } | undefined
  try {
    web = await startWebHost(join(work, 'data'))
    const profileDir = join(work, 'profile')
    const context = await launchBenchChromium(profileDir)
    try {
      const page = context.pages()[0] ?? (await context.newPage())
      page.setDefaultTimeout(1_800_000)
      await page.addInitScript(() => {
        const tasks: { start: number; duration: number }[] = []
        ;(globalThis as unknown as { __longTasks: typeof tasks }).__longTasks = tasks
        new PerformanceObserver((list) => {
          for (const e of list.getEntries()) tasks.push({ start: e.startTime, duration: e.duration })
        }).observe({ type: 'longtask', buffered: true })
      })
      if (process.env['E2E_SYNC_IDB_OPS']) {
        // tsx keeps function names with a `__name` helper the page does not have.
        await page.addInitScript('globalThis.__name = globalThis.__name || ((f) => f)')
        await page.addInitScript(countIdbRequests)
      }
      await page.goto(web.url)
      const form = page.getByRole('region', { name: 'Add a connection' })
      await form.getByLabel('Name').fill(LABEL)
      await form.getByLabel('API address (https://…)').fill(sandbox.url)
      await form.getByLabel('Secret').fill(sandbox.secret)
      await form.getByLabel('App token (JWT)').fill(sandbox.appToken)
      await form.getByLabel('Accounting time zone').selectOption('Asia/Tokyo')
      const saving = Date.now()
      await form.getByRole('button', { name: 'Save connection' }).click()
      const syncButton = page.getByRole('button', { name: `Sync ${LABEL}` })
      await savedOrFailed(page, syncButton)
      log(`connection saved (keychain included) in ${Date.now() - saving} ms`)
      const profiler = process.env['E2E_SYNC_PROFILE'] ? await startProfile(page) : undefined
      served.length = 0
      log(`syncing ${expected.history.length + expected.charges.length} records through the UI`)
      await page.evaluate(() =>
        (globalThis as unknown as { __idbOps?: Map<string, number> }).__idbOps?.clear(),
      )
      const t0 = await page.evaluate(() => performance.now())
      const webPid = web.child.pid ?? -1
      const cpu = (): { browser: number; web: number } => ({
        browser: treeCpuSeconds(chromiumOf(profileDir)),
        web: treeCpuSeconds(processOf(webPid)),
      })
      const cpuBefore = cpu()
      const inTrees = (pid: number, p: ProcInfo): boolean =>
        chromiumOf(profileDir)(pid, p) || processOf(webPid)(pid)
      const threadsBefore = threadTicks(inTrees)
      const started = Date.now()
      await syncButton.click()
      await page
        .getByTestId('sync-state')
        .filter({ hasText: 'Up to date.' })
        .waitFor({ timeout: Number(process.env['E2E_SYNC_TIMEOUT_MS'] ?? 1_800_000) })
        .catch(async (error: unknown) => {
          // Say what the sync showed instead of only that it did not finish.
          const shown = await page
            .getByTestId('sync-state')
            .innerText()
            .catch(() => '(no sync state)')
          const screenshot = join(tmpdir(), 'closebook-e2e-sync-timeout.png')
          await page.screenshot({ path: screenshot }).catch(() => undefined)
          throw new Error(`the sync did not finish; it shows "${shown}" (screenshot: ${screenshot})`, {
            cause: error,
          })
        })
      const elapsedMs = Date.now() - started
      const cpuAfter = cpu()
      // Where the CPU went, per process kind and thread (threads that exited meanwhile are not listed).
      log(`CPU by process and thread:\n${threadCpuDelta(threadsBefore, threadTicks(inTrees))}`)
      // Requests per route in 2-second bins: a route under its 40 shows where the sync left budget unused.
      const bins = new Map<string, number[]>()
      for (const r of served) {
        const b = bins.get(r.route) ?? []
        const i = Math.floor((r.at - started) / 2000)
        b[i] = (b[i] ?? 0) + 1
        bins.set(r.route, b)
        if (r.status === 429) log(`HTTP 429 on ${r.route} at ${((r.at - started) / 1000).toFixed(1)} s`)
      }
      for (const [route, b] of bins)
        log(`requests per 2 s, ${route}: ${Array.from(b, (n: number | undefined) => n ?? 0).join(' ')}`)
      if (profiler) log(`UI thread CPU profile, self time:\n${await profiler()}`)
      if (process.env['E2E_SYNC_IDB_OPS'])
        log(
          `IndexedDB requests during the sync: ${JSON.stringify(
            await page.evaluate(() =>
              [...((globalThis as unknown as { __idbOps: Map<string, number> }).__idbOps ?? [])].sort(
                (a, b) => b[1] - a[1],
              ),
            ),
          )}`,
        )
      const t1 = await page.evaluate(() => performance.now())
      const tasks = await page.evaluate(
        () => (globalThis as unknown as { __longTasks: LongTask[] }).__longTasks,
      )
      const inSync = tasks.filter((t) => t.start >= t0 && t.start <= t1)
      // When in the sync the UI thread was held, to find what held it: "start s after the click: ms".
      log(
        `long tasks ${inSync.map((t) => `${((t.start - t0) / 1000).toFixed(1)}s:${Math.round(t.duration)}`).join(' ')}`,
      )
      const stored = await page.evaluate(
        () =>
          new Promise<{ history: number; charges: number }>((ok, fail) => {
            const open = indexedDB.open('closebook')
            open.onerror = () => fail(open.error ?? new Error('IndexedDB open failed'))
            open.onsuccess = () => {
              // The charge list is stored in day parts (schema v10), history too (v15) beside its rows from
              // before: count the records the parts hold (their key index has an entry each).
              const tx = open.result.transaction(['history', 'historyParts', 'chargeParts'])
              const h = tx.objectStore('history').count()
              const hp = tx.objectStore('historyParts').index('keys').count()
              const parts = tx.objectStore('chargeParts').getAll()
              tx.oncomplete = () => {
                const rows = parts.result as { charges: unknown[] }[]
                const history = h.result + hp.result
                ok({ history, charges: rows.reduce((n, r) => n + r.charges.length, 0) })
                open.result.close()
              }
            }
          }),
      )
      if (stored.history !== expected.history.length || stored.charges !== expected.charges.length)
        throw new Error(
          `the cache holds ${stored.history} history records and ${stored.charges} charges; the sandbox has ${expected.history.length} and ${expected.charges.length}`,
        )
      const pagesByRoute = new Map<string, number>()
      for (const r of served)
        if (r.status === 200) pagesByRoute.set(r.route, (pagesByRoute.get(r.route) ?? 0) + 1)
      const http429 = served.filter((r) => r.status === 429).length
      const ceiling = ceilingSeconds(pagesByRoute)
      const records = stored.history + stored.charges
      const longest = inSync.reduce((m, t) => Math.max(m, t.duration), 0)
      const total = inSync.reduce((s, t) => s + t.duration, 0)
      const routes = [...pagesByRoute].map(([r, n]) => `${r} ${n} pages`).join(', ')
      const on = `${records} records (${stored.history} history, ${stored.charges} charges, ${charges} charges generated over 3 stores) synced through the UI of the built web host in Chromium (real IndexedDB) from the sandbox at rate scale 1`
      log(`done in ${(elapsedMs / 1000).toFixed(1)} s; ceiling ${ceiling.toFixed(1)} s; ${routes}`)
      const browserCpu = cpuAfter.browser - cpuBefore.browser
      const webCpu = cpuAfter.web - cpuBefore.web
      const cpuPer10k = ((browserCpu + webCpu) * 10_000) / records
      return {
        'sync.e2e_ceiling_ratio': measured(
          'sync.e2e_ceiling_ratio',
          Math.round((ceiling * 1000 * 100) / elapsedMs) / 100,
          `ceiling ${ceiling.toFixed(1)} s (Route burst ${SEED_ROUTE.burst}, then ${SEED_ROUTE.perMinute / 60}/s per route; ${routes}) / measured ${(elapsedMs / 1000).toFixed(1)} s from the click on Sync to "Up to date."; ${http429} HTTP 429; ${on}`,
        ),
        'sync.e2e_cpu_s_per_10k': measured(
          'sync.e2e_cpu_s_per_10k',
          Math.round(cpuPer10k * 100) / 100,
          `${(browserCpu + webCpu).toFixed(1)} CPU-s from the click on Sync to "Up to date." (/proc user + system time, reaped children included): Chromium's processes ${browserCpu.toFixed(1)} s, the web host ${webCpu.toFixed(1)} s; per 10k of ${records} records; the sandbox (this process) not counted`,
        ),
        'sync.e2e_records_per_s': measured(
          'sync.e2e_records_per_s',
          Math.round(records / (elapsedMs / 1000)),
          on,
        ),
        'sync.e2e_http_429': measured('sync.e2e_http_429', http429),
        'sync.e2e_longtask_max_ms': measured(
          'sync.e2e_longtask_max_ms',
          Math.round(longest),
          `${inSync.length} long tasks on the UI thread during the sync, ${Math.round(total)} ms in all`,
        ),
        'sync.e2e_longtask_count': measured('sync.e2e_longtask_count', inSync.length),
        'sync.e2e_longtask_total_ms': measured('sync.e2e_longtask_total_ms', Math.round(total)),
      }
    } finally {
      await context.close()
    }
  } finally {
    unsubscribe('http.server.response.finish', onResponse)
    if (web) await stopGroup(web.child)
    await sandbox.close()
    rmSync(work, { recursive: true, force: true })
  }
}
