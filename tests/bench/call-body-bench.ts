/**
 * What carrying a workbook's chunks costs the web host's transport, alone, in one Node process: the
 * chunks of a generated month (`month-data.ts`) as the renderer sends them, then for each form the
 * sender's encoding and the host's decoding with the contract's check, CPU seconds each, forms in turn:
 * `json` (the body as JSON, the cells as a plain array, made a Float64Array again after parsing, which is
 * what the old form cost plus that copy) and `binary` (`binary-call.ts`). No network and no writer: the
 * difference is the transport's own work. `npx tsx tests/bench/call-body-bench.ts [records] [rounds]`
 * prints one JSON line.
 */
import { desktopApiContract } from '../../electron/shared/contract'
import { encodeBinaryCall } from '../../electron/shared/binary-call'
import type { DesktopApi } from '../../electron/shared/contract'
import { callArgsOf } from '../../electron/web/call-body'
import { buildMonthWorkbook } from '../../src/export/month-workbook'
import { writeWorkbookThroughHost } from '../../src/export/workbook-client'
import { setDesktopApiForTests } from '../../src/platform'
import { generateMonth, monthWorkbookInputOf } from './shared/month-data'

type AppendArgs = Parameters<DesktopApi['export']['appendRows']>[0]

/** Every appendRows call of the month's workbook, as the renderer makes them. */
async function chunksOfMonth(records: number): Promise<AppendArgs[]> {
  const calls: AppendArgs[] = []
  let rows = 0
  setDesktopApiForTests({
    export: {
      begin: () => Promise.resolve({ exportId: 'a'.repeat(24) }),
      appendRows: (a: AppendArgs) => {
        calls.push(a)
        rows += a.packed ? a.packed.cells.length / (2 * a.packed.width) : (a.rows?.length ?? 0)
        return Promise.resolve({ rowsWritten: rows })
      },
      finish: () => Promise.resolve({ savedTo: 'path', path: '/dev/null', fileName: 'x.xlsx' }),
      cancel: () => Promise.resolve({ cancelled: true }),
    },
  } as unknown as DesktopApi)
  const input = monthWorkbookInputOf(
    generateMonth(records),
    { merchant: 'Bench K.K.', label: 'Bench', appVersion: 'bench' },
    Date.now(),
  )
  await writeWorkbookThroughHost(buildMonthWorkbook(input))
  setDesktopApiForTests(undefined)
  return calls
}

const cpu = (run: () => void): number => {
  const before = process.cpuUsage()
  run()
  const used = process.cpuUsage(before)
  return (used.user + used.system) / 1e6
}

const check = desktopApiContract['export:appendRows'].args

function jsonRound(calls: AppendArgs[]): { send: number; host: number; bytes: number } {
  const bodies: Buffer[] = []
  const send = cpu(() => {
    for (const a of calls)
      bodies.push(
        Buffer.from(
          JSON.stringify({
            args: a.packed ? { ...a, packed: { ...a.packed, cells: Array.from(a.packed.cells) } } : a,
          }),
        ),
      )
  })
  const host = cpu(() => {
    for (const body of bodies) {
      const call = callArgsOf('application/json', body)
      if (!call.ok) throw new Error(call.message)
      const args = call.args as { packed?: { cells: number[] | Float64Array } }
      if (args.packed) args.packed.cells = Float64Array.from(args.packed.cells)
      if (!check.safeParse(args).success) throw new Error('refused')
    }
  })
  return { send, host, bytes: bodies.reduce((n, b) => n + b.length, 0) }
}

function binaryRound(calls: AppendArgs[]): { send: number; host: number; bytes: number } {
  const bodies: Buffer[] = []
  const send = cpu(() => {
    for (const a of calls) {
      const bin = encodeBinaryCall(a)
      bodies.push(
        bin ? Buffer.from(bin.buffer, bin.byteOffset, bin.length) : Buffer.from(JSON.stringify({ args: a })),
      )
    }
  })
  const host = cpu(() => {
    for (const [i, body] of bodies.entries()) {
      const binary = calls[i]?.packed !== undefined
      const call = callArgsOf(binary ? 'application/x-closebook-call' : 'application/json', body)
      if (!call.ok) throw new Error(call.message)
      if (!check.safeParse(call.args).success) throw new Error('refused')
    }
  })
  return { send, host, bytes: bodies.reduce((n, b) => n + b.length, 0) }
}

async function main(): Promise<void> {
  const records = Number(process.argv[2] ?? 40_000)
  const rounds = Number(process.argv[3] ?? 3)
  const calls = await chunksOfMonth(records)
  const rows = calls.reduce(
    (n, a) => n + (a.packed ? a.packed.cells.length / (2 * a.packed.width) : (a.rows?.length ?? 0)),
    0,
  )
  const results: Record<string, { send: number; host: number; bytes: number }[]> = { json: [], binary: [] }
  for (let r = 0; r < rounds; r++) {
    results['json']?.push(jsonRound(calls))
    results['binary']?.push(binaryRound(calls))
  }
  const round = (x: number): number => Math.round(x * 1000) / 1000
  const summary = Object.fromEntries(
    Object.entries(results).map(([form, runs]) => [
      form,
      {
        sendCpuS: runs.map((x) => round(x.send)),
        hostCpuS: runs.map((x) => round(x.host)),
        // Per row, the least of the rounds (the one least disturbed by the machine's other work).
        sendUsPerRow: round((Math.min(...runs.map((x) => x.send)) / rows) * 1e6),
        hostUsPerRow: round((Math.min(...runs.map((x) => x.host)) / rows) * 1e6),
        mib: Math.round((runs[0]?.bytes ?? 0) / 2 ** 20),
      },
    ]),
  )
  process.stdout.write(`${JSON.stringify({ records, chunks: calls.length, rows, ...summary })}\n`)
}

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`)
  process.exit(1)
})
