/** Every schema version step, oldest first: database.ts registers them in this order. */
import type { MigrationStep } from './step'
import { v1 } from './v1'
import { v2 } from './v2'
import { v3 } from './v3'
import { v4 } from './v4'
import { v5 } from './v5'
import { v6 } from './v6'
import { v7 } from './v7'
import { v8 } from './v8'
import { v9 } from './v9'
import { v10 } from './v10'
import { v11 } from './v11'
import { v12 } from './v12'
import { v13 } from './v13'
import { v14 } from './v14'
import { v15 } from './v15'
import { v16 } from './v16'
import { v17 } from './v17'

export const MIGRATIONS: readonly MigrationStep[] = [
  v1,
  v2,
  v3,
  v4,
  v5,
  v6,
  v7,
  v8,
  v9,
  v10,
  v11,
  v12,
  v13,
  v14,
  v15,
  v16,
  v17,
]
export type { MigrationProgress, MigrationStep, ReportMigrationProgress } from './step'
