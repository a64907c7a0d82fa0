/**
 * Runs a benchmark entry (a TS module that sets `window.__bench = async (args) => result`) inside Debian's
 * Chromium: vite bundles it with the renderer's own code (Dexie, src/db, src/ledger…), a loopback static
 * server serves it, Playwright calls `__bench` and returns its JSON. IndexedDB is Chromium's real one, on
 * disk in a throwaway profile.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { basename, extname, join, resolve } from 'node:path'
import { readFile } from 'node:fs/promises'
import { chromium, type BrowserContext, type Page } from '@playwright/test'
import vue from '@vitejs/plugin-vue'
import { build } from 'vite'

const TYPES: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css' }

/** The media type a bundled bench file is served with. */
export const contentTypeOf = (file: string): string => TYPES[extname(file)] ?? 'application/octet-stream'

/**
 * Debian's Chromium, headless, with a persistent profile on disk (IndexedDB as the app's window has it;
 * an incognito context keeps it in memory with a small quota, where 500k records fail).
 */
export function launchBenchChromium(profileDir: string): Promise<BrowserContext> {
  return chromium.launchPersistentContext(profileDir, {
    headless: true,
    executablePath: process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium',
    args: [
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-gpu',
      // e.g. BENCH_JS_FLAGS=--max-old-space-size=384: proves a run fits a heap cap.
      ...(process.env['BENCH_JS_FLAGS'] ? [`--js-flags=${process.env['BENCH_JS_FLAGS']}`] : []),
    ],
  })
}

/**
 * Bundles a benchmark entry with the renderer's own code into `outDir` (an index.html that loads it), using
 * `srcDir` as the build's root: what runInChromium serves, and what a suite serves on another origin.
 */
export async function bundleEntry(entry: string, srcDir: string, outDir: string): Promise<void> {
  mkdirSync(srcDir, { recursive: true })
  writeFileSync(
    join(srcDir, 'index.html'),
    `<!doctype html><html><head><meta charset="utf-8"><title>bench</title></head><body><script type="module" src="/${basename(entry)}"></script></body></html>`,
  )
  writeFileSync(join(srcDir, basename(entry)), `import ${JSON.stringify(resolve(entry))}\n`)
  await build({
    root: srcDir,
    logLevel: 'error',
    configFile: false,
    plugins: [vue()],
    // plugin-vue dedupes 'vue' from the build's root, a temporary folder with no node_modules: an entry
    // that reaches a Pinia store would fail to resolve it. The project's own copy, as the app bundles it.
    resolve: {
      alias: [
        {
          find: /^vue$/,
          replacement: resolve(__dirname, '../../../node_modules/vue/dist/vue.runtime.esm-bundler.js'),
        },
      ],
    },
    // base './': the page may be served under a path on another origin (a suite's route on the app's).
    base: './',
    build: { outDir, emptyOutDir: true, minify: false, target: 'es2022' },
  })
}

export async function runInChromium<T>(
  entry: string,
  args: unknown,
  options: {
    timeoutMs?: number
    /** Node functions the page may call (page.exposeFunction), e.g. to stream generated data in. */
    expose?: Record<string, (...args: never[]) => unknown>
    /**
     * Drives the page itself instead of one `__bench(args)` call: for a benchmark with steps Node must
     * do in between (choosing a file in an input). Gets the page and the profile directory.
     */
    drive?: (page: Page, profileDir: string) => Promise<T>
    /**
     * Answers a request on the page's own origin before the static files (true: answered), e.g. a
     * stand-in for the web host's `POST /api/call/<channel>`.
     */
    handle?: (req: IncomingMessage, res: ServerResponse) => boolean
  } = {},
): Promise<T> {
  const work = mkdtempSync(join(tmpdir(), 'closebook-bench-'))
  const outDir = join(work, 'dist')
  try {
    await bundleEntry(entry, join(work, 'src'), outDir)
    const server = createServer((req, res) => {
      if (options.handle?.(req, res)) return
      const path = new URL(req.url ?? '/', 'http://x').pathname
      const file = join(outDir, path === '/' ? 'index.html' : path)
      if (!file.startsWith(outDir)) return void res.writeHead(404).end()
      readFile(file)
        .then((body) => res.writeHead(200, { 'Content-Type': contentTypeOf(file) }).end(body))
        .catch(() => res.writeHead(404).end())
    })
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    const port = (server.address() as AddressInfo).port
    // A persistent profile on disk, as the app's window has: browser.newPage() would open an incognito
    // context, whose IndexedDB lives in memory with a small quota (500k records fail there).
    const context = await launchBenchChromium(join(work, 'profile'))
    try {
      const page = context.pages()[0] ?? (await context.newPage())
      page.setDefaultTimeout(options.timeoutMs ?? 600_000)
      for (const [name, fn] of Object.entries(options.expose ?? {})) await page.exposeFunction(name, fn)
      await page.goto(`http://127.0.0.1:${port}/`)
      await page.waitForFunction(
        () => typeof (globalThis as unknown as { __bench?: unknown }).__bench === 'function',
      )
      if (options.drive) return await options.drive(page, join(work, 'profile'))
      return (await page.evaluate(
        (a) => (globalThis as unknown as { __bench: (x: unknown) => Promise<unknown> }).__bench(a),
        args,
      )) as T
    } finally {
      await context.close()
      server.close()
    }
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
}
