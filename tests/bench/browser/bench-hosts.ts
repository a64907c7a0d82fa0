/**
 * Where the bench page's `files:*` and `export:*` calls go, by the host the bench names (`__workbookHost`):
 * 'http', the web host's own client (`POST /api/call/<channel>` on this origin, JSON or the binary form,
 * answered by main's handlers in Node); 'bridge', Playwright's page bridge (JSON over the DevTools
 * protocol); 'hostless', answered in the page (rows and text counted, not sent: the renderer's own work).
 * Each call's time is added to `hostTime.ms`: the page waits for each.
 */
import { createDesktopApi } from '../../../electron/shared/channels'
import type { DesktopApi } from '../../../electron/shared/contract'
import { packedRowCount } from '../../../electron/shared/contract/export-packed'
import type { DeliveredFile } from '../../../electron/shared/contract/files'
import { setDesktopApiForTests } from '../../../src/platform'
import { createHttpTransport } from '../../../src/platform/http-transport'
import type { WorkbookHost } from '../shared/month-end-bench-types'

export interface BenchHostPage {
  __fileBegin: (name: string) => Promise<string>
  __fileAppend: (fileId: string, chunk: string) => Promise<number>
  __fileFinish: (fileId: string) => Promise<DeliveredFile>
  __fileCancel: (fileId: string) => Promise<boolean>
  __exportCall: (channel: string, args: string) => Promise<string>
  __workbookHost: () => Promise<WorkbookHost>
}

/** Time spent waiting for the host, ms (the rest is the app's own), and the rows the last workbook wrote. */
export const hostTime = { ms: 0, workbookRows: 0 }

async function timedHost<T>(call: () => Promise<T>): Promise<T> {
  const t = performance.now()
  try {
    return await call()
  } finally {
    hostTime.ms += performance.now() - t
  }
}

/** JSON across the page bridge: a packed chunk's cells go as a plain array, made a Float64Array again in Node. */
const bridgeJson = (args: unknown): string =>
  JSON.stringify(args, (_, v: unknown) => (v instanceof Float64Array ? Array.from(v) : v))

type Channels<D extends 'files' | 'export'> = keyof DesktopApi[D] & string

/** The calls of `domain` answered in the page: nothing is sent or written. */
function hostlessApi(): Pick<DesktopApi, 'files' | 'export'> {
  let rows = 0
  let chars = 0
  return {
    files: {
      begin: () => Promise.resolve({ fileId: 'hostless-bench-file-0000' }),
      append: (a) => Promise.resolve({ bytesWritten: (chars += a.chunk.length) }),
      finish: () => Promise.resolve({ savedTo: 'path', path: '/dev/null', fileName: 'hostless.csv' }),
      cancel: () => Promise.resolve({ cancelled: true }),
    },
    export: {
      begin: () => {
        rows = 0
        return Promise.resolve({ exportId: 'hostless-bench-export' })
      },
      appendRows: (a) => {
        rows += a.packed ? packedRowCount(a.packed) : (a.rows?.length ?? 0)
        return Promise.resolve({ rowsWritten: rows })
      },
      finish: () => Promise.resolve({ savedTo: 'path', path: '/dev/null', fileName: 'hostless.xlsx' }),
      cancel: () => Promise.resolve({ cancelled: true }),
    },
  }
}

/** The page bridge's calls: files to main's FileWriter, exports to main's handlers, in Node. */
function bridgeApi(page: BenchHostPage): Pick<DesktopApi, 'files' | 'export'> {
  const exportCall =
    <T>(channel: string) =>
    async (args: unknown): Promise<T> =>
      JSON.parse(await page.__exportCall(`export:${channel}`, bridgeJson(args))) as T
  return {
    files: {
      begin: async (a) => ({ fileId: await page.__fileBegin(String(a.suggestedName)) }),
      append: async (a) => ({ bytesWritten: await page.__fileAppend(a.fileId, a.chunk) }),
      finish: (a) => page.__fileFinish(a.fileId),
      cancel: async (a) => ({ cancelled: await page.__fileCancel(a.fileId) }),
    },
    export: {
      begin: exportCall('begin'),
      appendRows: exportCall('appendRows'),
      finish: exportCall('finish'),
      cancel: exportCall('cancel'),
    },
  }
}

/** Installs the page's DesktopApi for files and exports, each call going to the bench's current host. */
export function installBenchHosts(page: BenchHostPage): void {
  const apis: Record<WorkbookHost, Pick<DesktopApi, 'files' | 'export'>> = {
    http: createDesktopApi(createHttpTransport('bench-token')),
    bridge: bridgeApi(page),
    hostless: hostlessApi(),
  }
  let host: WorkbookHost | undefined
  const routed = <D extends 'files' | 'export'>(domain: D, first: Channels<D>): DesktopApi[D] => {
    const calls: Record<string, (a: unknown) => Promise<unknown>> = {}
    for (const channel of Object.keys(apis.http[domain]) as Channels<D>[])
      calls[channel] = async (a) => {
        // Asked at each file's or export's first call: the bench may change hosts from run to run.
        if (channel === first || host === undefined) host = await page.__workbookHost()
        const call = apis[host][domain][channel] as (a: unknown) => Promise<unknown>
        const result = await timedHost(() => call(a))
        if (domain === 'export' && channel === 'appendRows')
          hostTime.workbookRows = (result as { rowsWritten: number }).rowsWritten
        return result
      }
    return calls as unknown as DesktopApi[D]
  }
  setDesktopApiForTests({
    files: routed('files', 'begin'),
    export: routed('export', 'begin'),
  } as Pick<DesktopApi, 'files' | 'export'> as DesktopApi)
}
