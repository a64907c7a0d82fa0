// `npm run test:soak [-- --runs N --records N]`: the convergence test at soak sizes (default 100 runs of
// 2,000 charges each), plus the sync integration tests. Prints the tally; fails on any run that does not converge.
import { spawnSync } from 'node:child_process'
import { parseArgs } from 'node:util'

const { values } = parseArgs({ options: { runs: { type: 'string' }, records: { type: 'string' } } })
const env = {
  ...process.env,
  CLOSEBOOK_CONVERGENCE_RUNS: values.runs ?? '100',
  CLOSEBOOK_CONVERGENCE_RECORDS: values.records ?? '2000',
}
const result = spawnSync('npx', ['vitest', 'run', 'tests/integration/hardening', 'tests/integration/sync'], {
  env,
  stdio: 'inherit',
})
process.exit(result.status ?? 1)
