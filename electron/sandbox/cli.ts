/**
 * `npm run sandbox -- --port 0 --seed 42 --stores 3 --records 5000`: runs the payment API sandbox alone.
 * When ready it prints one line of JSON to stdout (url, secret, appToken, storeIds; controlToken with
 * --control) and nothing else there; messages go to stderr. Stops cleanly on SIGINT/SIGTERM.
 */
import { parseArgs } from 'node:util'
import { SandboxInputError } from './dataset'
import { SANDBOX_SHAPES, type SandboxShape } from './model'
import {
  CARRY_OVER_READINGS,
  LEDGER_AMOUNT_READINGS,
  TRANSFER_FEE_READINGS,
  TRANSFER_SCHEDULES,
  type PayoutOptions,
} from './payouts'
import {
  DEFAULT_FROM,
  DEFAULT_LATE_CHANGE_EVERY_MS,
  DEFAULT_SHAPE,
  DEFAULT_TO,
  startSandbox,
  type SandboxOptions,
} from './server'

const HELP = `Closebook payment API sandbox: the seed's four list operations on 127.0.0.1.

Usage: npm run sandbox -- [flags]

Data
  --shape S                seed (the seed's single card shape) or varied (the real service's variety)
                           (default ${DEFAULT_SHAPE})
  --late-change-every-ms N varied: one queued late change to an old record every N ms (capture,
                           konbini/bank transfer paid, refund succeeded); 0: only via the control
                           endpoint (default ${DEFAULT_LATE_CHANGE_EVERY_MS})
  --index-lag-ms N         records added while running show in the lists only up to N ms after their
                           created_on, like the real search index (default 0: at once)
  --port N                 port to listen on (default 0: a free port)
  --seed N                 seed of the generated data and of fault decisions (default 42)
  --stores N               number of stores (default 3)
  --records N              number of charges to generate; refunds come on top (default 5000)
  --from ISO               start of the generated range, inclusive (default ${DEFAULT_FROM})
  --to ISO                 end of the generated range, exclusive (default ${DEFAULT_TO})
  --secret S               fixed secret (default: generated)
  --app-token JWT          fixed app token (default: generated)
  --growth-per-minute N    new records per minute while running (charges, refunds, status changes)
  --control                enable the loopback-only control endpoint /__control/* (token in the ready line)
  --control-token T        fixed control token

Rate limits (seed §8.2: Route burst 30, 1,200/min; Exact burst 10, 120/min)
  --rate-scale N           multiply both limits by N (default 1)
  --no-rate-limit          no limits at all (headers are still sent)

Faults (each reproducible by --seed)
  --latency-ms N           added to every response
  --jitter-ms N            plus a random 0..N ms
  --fail-rate R            share of requests answered 500/502/503 (0..1)
  --drop-rate R            share of connections reset with no answer
  --truncate-rate R        share of 200 answers whose JSON is cut short
  --bad-item-rate R        share of pages with one item that violates the schema
  --storm PERIOD:DURATION  429 for the last DURATION ms of every PERIOD ms (e.g. 10000:2000)
  --outdated-app-token     403 OUTDATED_APP_TOKEN to every authenticated request
  --store-scoped-token     403 INVALID_PERMISSIONS on the all-stores and payout paths (store paths work)
  --ledger-amounts R       net (default) | gross: what a ledger's amount is
  --transfer-fee R         manual_ledger (default) | bank_deducted: where the JPY transfer fee sits
  --carry-over R           no_transfer (default) | blank_transfer | open_ledgers: a payout under the minimum
  --min-transfer-payout N  minimum payout in JPY (default 10000; two-decimal currencies half, in cents)
  --transfer-schedule S    monthly (default: closed at month end, paid the 15th of the next month) | weekly
                           (Monday–Sunday in Tokyo, transfer created the next Monday, paid that Friday)

  --help                   this text

Ready line (stdout, one line of JSON):
  {"url":"http://127.0.0.1:<port>","secret":"...","appToken":"...","storeIds":["..."]}`

type Parsed = ReturnType<typeof parse>

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    strict: true,
    options: {
      port: { type: 'string' },
      shape: { type: 'string' },
      'late-change-every-ms': { type: 'string' },
      'index-lag-ms': { type: 'string' },
      'outdated-app-token': { type: 'boolean' },
      'store-scoped-token': { type: 'boolean' },
      'ledger-amounts': { type: 'string' },
      'transfer-fee': { type: 'string' },
      'carry-over': { type: 'string' },
      'min-transfer-payout': { type: 'string' },
      'transfer-schedule': { type: 'string' },
      seed: { type: 'string' },
      stores: { type: 'string' },
      records: { type: 'string' },
      from: { type: 'string' },
      to: { type: 'string' },
      secret: { type: 'string' },
      'app-token': { type: 'string' },
      'growth-per-minute': { type: 'string' },
      control: { type: 'boolean' },
      'control-token': { type: 'string' },
      'rate-scale': { type: 'string' },
      'no-rate-limit': { type: 'boolean' },
      'latency-ms': { type: 'string' },
      'jitter-ms': { type: 'string' },
      'fail-rate': { type: 'string' },
      'drop-rate': { type: 'string' },
      'truncate-rate': { type: 'string' },
      'bad-item-rate': { type: 'string' },
      storm: { type: 'string' },
      help: { type: 'boolean' },
    },
  })
}

function number(
  values: Parsed['values'],
  flag: keyof Parsed['values'],
  check: (n: number) => boolean,
  expected: string,
): number | undefined {
  const raw = values[flag]
  if (raw === undefined || typeof raw !== 'string') return undefined
  const n = Number(raw)
  if (raw.trim() === '' || !Number.isFinite(n) || !check(n))
    throw new SandboxInputError(`--${flag}`, `expected ${expected}, got "${raw}"`)
  return n
}

const whole = (min: number, max: number) => (n: number) => Number.isInteger(n) && n >= min && n <= max
const rate = (n: number) => n >= 0 && n <= 1

function reading<T extends string>(
  values: Parsed['values'],
  flag: keyof Parsed['values'],
  allowed: readonly T[],
): T | undefined {
  const raw = values[flag]
  if (raw === undefined || typeof raw !== 'string') return undefined
  if (!(allowed as readonly string[]).includes(raw))
    throw new SandboxInputError(`--${flag}`, `expected ${allowed.join(', ')}, got "${raw}"`)
  return raw as T
}

/** The payout readings and minimum (README.md, "Payouts"); undefined when none is given. */
function payoutOptions(v: Parsed['values']): PayoutOptions | undefined {
  const out: PayoutOptions = {}
  const ledgerAmounts = reading(v, 'ledger-amounts', LEDGER_AMOUNT_READINGS)
  const transferFee = reading(v, 'transfer-fee', TRANSFER_FEE_READINGS)
  const carryOver = reading(v, 'carry-over', CARRY_OVER_READINGS)
  const min = number(v, 'min-transfer-payout', whole(0, 1_000_000_000), 'a whole number of yen')
  const schedule = reading(v, 'transfer-schedule', TRANSFER_SCHEDULES)
  if (ledgerAmounts) out.ledgerAmounts = ledgerAmounts
  if (transferFee) out.transferFee = transferFee
  if (carryOver) out.carryOver = carryOver
  if (min !== undefined) out.minTransferPayout = min
  if (schedule) out.transferSchedule = schedule
  return Object.keys(out).length > 0 ? out : undefined
}

/** CLI flags to options; throws SandboxInputError naming the flag. */
export function optionsFromArgs(argv: string[]): SandboxOptions | 'help' {
  let parsed: Parsed
  try {
    parsed = parse(argv)
  } catch (error) {
    throw new SandboxInputError('arguments', error instanceof Error ? error.message : String(error))
  }
  const v = parsed.values
  if (v.help) return 'help'
  const options: SandboxOptions = {}
  const set = <K extends keyof SandboxOptions>(key: K, value: SandboxOptions[K] | undefined) => {
    if (value !== undefined) options[key] = value
  }
  set('port', number(v, 'port', whole(0, 65535), 'a port from 0 to 65535'))
  if (v.shape !== undefined) {
    if (!(SANDBOX_SHAPES as readonly string[]).includes(v.shape))
      throw new SandboxInputError('--shape', `expected ${SANDBOX_SHAPES.join(' or ')}, got "${v.shape}"`)
    options.shape = v.shape as SandboxShape
  }
  set(
    'lateChangeEveryMs',
    number(v, 'late-change-every-ms', whole(0, 86_400_000), 'milliseconds (0 for on demand only)'),
  )
  set('indexLagMs', number(v, 'index-lag-ms', whole(0, 600_000), 'milliseconds'))
  if (v['outdated-app-token']) options.appTokenState = 'outdated'
  if (v['store-scoped-token']) options.appTokenScope = 'store'
  const payouts = payoutOptions(v)
  if (payouts) options.payouts = payouts
  set('seed', number(v, 'seed', whole(0, 2 ** 32), 'a whole number'))
  set('stores', number(v, 'stores', whole(1, 1000), 'a whole number from 1 to 1000'))
  set('records', number(v, 'records', whole(0, 5_000_000), 'a whole number from 0 to 5000000'))
  set('from', v.from)
  set('to', v.to)
  set('secret', v.secret)
  set('appToken', v['app-token'])
  set(
    'growthPerMinute',
    number(v, 'growth-per-minute', (n) => n >= 0 && n <= 1_000_000, 'a number from 0 to 1000000'),
  )
  if (v.control || v['control-token'] !== undefined) options.control = true
  set('controlToken', v['control-token'])
  set(
    'rateScale',
    number(v, 'rate-scale', (n) => n > 0 && n <= 10_000, 'a positive number'),
  )
  if (v['no-rate-limit']) options.rateLimit = false
  const faults: NonNullable<SandboxOptions['faults']> = {}
  const setFault = <K extends keyof typeof faults>(key: K, value: (typeof faults)[K] | undefined) => {
    if (value !== undefined) faults[key] = value
  }
  setFault('latencyMs', number(v, 'latency-ms', whole(0, 600_000), 'milliseconds'))
  setFault('jitterMs', number(v, 'jitter-ms', whole(0, 600_000), 'milliseconds'))
  setFault('failRate', number(v, 'fail-rate', rate, 'a share from 0 to 1'))
  setFault('dropRate', number(v, 'drop-rate', rate, 'a share from 0 to 1'))
  setFault('truncateRate', number(v, 'truncate-rate', rate, 'a share from 0 to 1'))
  setFault('badItemRate', number(v, 'bad-item-rate', rate, 'a share from 0 to 1'))
  if (v.storm !== undefined) {
    const m = /^(\d+):(\d+)$/.exec(v.storm)
    if (!m || Number(m[2]) >= Number(m[1]) || Number(m[1]) === 0)
      throw new SandboxInputError(
        '--storm',
        `expected PERIOD:DURATION in ms with DURATION < PERIOD, got "${v.storm}"`,
      )
    faults.storm = { periodMs: Number(m[1]), durationMs: Number(m[2]) }
  }
  if (Object.keys(faults).length > 0) options.faults = faults
  return options
}

async function main(): Promise<void> {
  let options: SandboxOptions | 'help'
  try {
    options = optionsFromArgs(process.argv.slice(2))
  } catch (error) {
    process.stderr.write(
      `sandbox: ${error instanceof Error ? error.message : String(error)}\nRun with --help for the flags.\n`,
    )
    process.exit(2)
  }
  if (options === 'help') {
    process.stdout.write(`${HELP}\n`)
    return
  }
  const sandbox = await startSandbox(options).catch((error: unknown) => {
    process.stderr.write(`sandbox: ${error instanceof Error ? error.message : String(error)}\n`)
    process.exit(2)
  })
  process.stdout.write(`${JSON.stringify(sandbox.readyInfo())}\n`)
  const stop = (signal: string) => {
    process.stderr.write(`sandbox: ${signal}, stopping\n`)
    void sandbox.close().then(() => process.exit(0))
  }
  process.once('SIGINT', () => stop('SIGINT'))
  process.once('SIGTERM', () => stop('SIGTERM'))
}

if (process.argv[1] && /sandbox[/\\]cli\.[cm]?[tj]s$/.test(process.argv[1])) void main()
