// scripts/rewrite-domain-imports.mjs: what the integrator runs on other branches' files after the domain
// move. Old specifiers become new ones, storage-row names split off to src/db/storage-rows, a file that
// itself moved is re-based, and a second run changes nothing.
import { describe, expect, it } from 'vitest'
import { rewriteSource } from '../../../scripts/rewrite-domain-imports.mjs'

describe('rewrite-domain-imports', () => {
  it('points the old modules at src/domain', () => {
    const before = [
      "import { periodOf } from '../reconcile/periods'",
      "import { formatAmount, toMajorUnits } from '../reconcile/currency'",
      "import { fingerprintOf } from '../reconcile/fingerprint'",
      "import { createDayResolver } from '../import/local-day'",
      "import type { HistoryRecord } from '../db/records'",
      "import { crossCheck } from '../reconcile/cross-check'",
    ].join('\n')
    expect(rewriteSource('src/stores/planted.ts', before)).toBe(
      [
        "import { periodOf } from '../domain/periods'",
        "import { formatAmount, toMajorUnits } from '../domain/currency'",
        "import { fingerprintOf } from '../domain/fingerprint'",
        "import { createDayResolver } from '../domain/local-day'",
        "import type { HistoryRecord } from '../domain/records'",
        "import { crossCheck } from '../reconcile/cross-check'",
      ].join('\n'),
    )
  })

  it('sends storage-row names to src/db/storage-rows, splitting one import in two', () => {
    const before = "import type {\n  AuditRow,\n  MarkRecord,\n  MarkDayRecord as Day,\n} from './records'\n"
    expect(rewriteSource('src/db/planted.ts', before)).toBe(
      "import type {\n  MarkRecord,\n} from '../domain/records'\nimport type {\n  AuditRow,\n  MarkDayRecord as Day,\n} from './storage-rows'\n",
    )
    expect(
      rewriteSource(
        'tests/unit/src/db/planted.test.ts',
        "import type { SettingRecord } from '../../../../src/db/records'",
      ),
    ).toBe("import type { SettingRecord } from '../../../../src/db/storage-rows'")
  })

  it('rewrites dynamic imports, vi.mock and specifiers from tests at any depth', () => {
    const before =
      "vi.mock('../../../../src/reconcile/periods')\nconst m = await import('../../../../src/db/records')"
    expect(rewriteSource('tests/unit/src/stores/planted.test.ts', before)).toBe(
      "vi.mock('../../../../src/domain/periods')\nconst m = await import('../../../../src/domain/records')",
    )
  })

  it('is idempotent and leaves package and unrelated imports alone', () => {
    const text =
      "import { z } from 'zod'\nimport { periodOf } from '../domain/periods'\nimport { x } from './periods-view'\n"
    expect(rewriteSource('src/stores/planted.ts', text)).toBe(text)
  })
})
