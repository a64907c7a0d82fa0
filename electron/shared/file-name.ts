/**
 * The one rule for every file name the app writes (exports, journals, backups, workbooks), on every
 * desktop: a name is one path segment that shows what it is and opens as what it says. Pure TypeScript:
 * the contract checks names with it, main checks them again before writing, and the renderer builds its
 * names with `toSafeFileName` so that they pass.
 */

export const MAX_FILE_NAME_LENGTH = 120

/** The `reason` a refused name's error carries, so the renderer can say what is wrong in its language. */
export const FILE_NAME_REASON = 'unsafe_file_name'

export type FileNameProblem =
  'empty' | 'too_long' | 'path' | 'control' | 'invisible' | 'dot' | 'edge' | 'reserved' | 'extension'

/** Path separators and the characters Windows refuses in a name. */
const PATH_CHARS = /[/\\:*?"<>|]/
/** C0 controls, DEL and the C1 controls. */
// eslint-disable-next-line no-control-regex
const CONTROL_CHARS = /[\u0000-\u001F\u007F-\u009F]/
/**
 * Characters that change how a name is shown without showing themselves: bidi overrides, embeddings and
 * isolates (`invoice\u202Excsv.exe` shows as `invoiceexe.vsc`), zero-width characters, the BOM, soft hyphen,
 * line and paragraph separators (all of Unicode's Cf, Zl and Zp), and lone surrogates.
 */
const INVISIBLE_CHARS = /[\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u
/**
 * Windows device names, reserved with any extension and in any case (`con.xlsx`, `Lpt1.tar.gz`), and
 * with the superscript digits Windows also takes as 1–3.
 */
const RESERVED_STEM = /^(con|prn|aux|nul|conin\$|conout\$|com[0-9¹²³]|lpt[0-9¹²³])$/i

const PROBLEM_TEXT: Readonly<Record<FileNameProblem, string>> = {
  empty: 'a file name is required',
  too_long: `a file name has at most ${MAX_FILE_NAME_LENGTH} characters`,
  path: 'a file name must not contain / \\ : * ? " < > |',
  control: 'a file name must not contain control characters (such as NUL or DEL)',
  invisible: 'a file name must not contain invisible or direction-changing characters (such as U+202E)',
  dot: 'a file name must not start with a dot or be . or ..',
  edge: 'a file name must not start or end with a space, or end with a dot',
  reserved: 'a file name must not be a reserved device name (CON, PRN, AUX, NUL, COM1…, LPT1…)',
  extension: 'a file name must end with the expected extension',
}

/** Lower-case extensions with their dot: `['.csv', '.txt']`. */
export type FileExtensions = readonly `.${string}`[]

/** What is wrong with `name`, or null. `extensions`: the ones a file of its kind may have (any if absent). */
export function fileNameProblem(name: string, extensions?: FileExtensions): FileNameProblem | null {
  if (name.length === 0) return 'empty'
  if (name.length > MAX_FILE_NAME_LENGTH) return 'too_long'
  if (PATH_CHARS.test(name)) return 'path'
  if (CONTROL_CHARS.test(name)) return 'control'
  if (INVISIBLE_CHARS.test(name)) return 'invisible'
  if (name.startsWith('.')) return 'dot'
  if (/^\s|[\s.]$/u.test(name)) return 'edge'
  // Windows ignores spaces before the dot: `CON .txt` is CON too.
  const stem = (name.split('.')[0] ?? '').trimEnd()
  if (RESERVED_STEM.test(stem)) return 'reserved'
  if (extensions && !extensions.some((ext) => name.toLowerCase().endsWith(ext))) return 'extension'
  return null
}

/** The English sentence for a problem (contract details, logs); the UI says `errors.<code>` instead. */
export function fileNameProblemText(problem: FileNameProblem, extensions?: FileExtensions): string {
  return problem === 'extension' && extensions
    ? `${PROBLEM_TEXT.extension} (${extensions.join(' or ')})`
    : PROBLEM_TEXT[problem]
}

/**
 * `base` made into a name part that passes the rule: forbidden and invisible characters become `-`, runs
 * of `-` and spaces collapse, dots and dashes at the ends go. Used for text the user chose (a store label).
 */
export function toSafeFileNamePart(base: string, maxLength = 60): string {
  const cleaned = base
    .normalize('NFKC')
    // eslint-disable-next-line no-control-regex
    .replace(/[/\\:*?"<>|\u0000-\u001F\u007F-\u009F\p{Cf}\p{Zl}\p{Zp}\p{Cs}\s]+/gu, '-')
    .replace(/-{2,}/g, '-')
  // Cut by code point: cutting between the halves of an emoji would leave a lone surrogate.
  return Array.from(cleaned)
    .slice(0, maxLength)
    .join('')
    .replace(/^[.-]+|[.-]+$/g, '')
}
