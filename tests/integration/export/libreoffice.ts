/**
 * LibreOffice headless as an independent evaluator of the workbook's formulas: whether it is here, and a
 * conversion that recalculates every formula on load. Debian: `libreoffice-calc-nogui`.
 */
import { execFile, execFileSync } from 'node:child_process'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { promisify } from 'node:util'

const SOFFICE = process.env['CLOSEBOOK_SOFFICE'] ?? 'soffice'

/** Why LibreOffice cannot run here, or null when it can. */
export function libreOfficeMissing(): string | null {
  try {
    execFileSync(SOFFICE, ['--version'], { stdio: 'pipe', timeout: 30_000 })
    return null
  } catch (error) {
    return `LibreOffice (${SOFFICE}) is not available: ${(error as Error).message.split('\n')[0]}`
  }
}

/** LibreOffice recalculates OOXML on load only when told to: OOXMLRecalcMode 0 = always. */
const RECALC_ALWAYS = `<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<item oor:path="/org.openoffice.Office.Calc/Formula/Load"><prop oor:name="OOXMLRecalcMode" oor:op="fuse"><value>0</value></prop></item>
</oor:items>
`

/** Opens each file in LibreOffice, recalculates it and saves it as xlsx under `<dir>/recalculated`. */
export async function recalculate(dir: string, files: readonly string[]): Promise<string> {
  const profile = join(dir, 'profile')
  await mkdir(join(profile, 'user'), { recursive: true })
  await writeFile(join(profile, 'user', 'registrymodifications.xcu'), RECALC_ALWAYS)
  const outDir = join(dir, 'recalculated')
  await promisify(execFile)(
    SOFFICE,
    [
      `-env:UserInstallation=${pathToFileURL(profile).href}`,
      '--headless',
      '--norestore',
      '--convert-to',
      'xlsx',
      '--outdir',
      outDir,
      ...files,
    ],
    { timeout: 110_000 },
  )
  return outDir
}
