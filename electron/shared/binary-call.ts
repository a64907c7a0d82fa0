/**
 * A call's arguments as one binary body, for the web host's HTTP transport. Electron's IPC copies typed
 * arrays and strings as bytes (structured clone); JSON writes every number as text, escapes every string,
 * and the host parses it all again, which for a workbook's chunks cost more than writing the file. In this
 * form, `Float64Array` and `Uint8Array` values and long strings travel as raw parts beside a small JSON
 * header, and the host gets back the same values IPC would hand it, for the contract to check as usual.
 *
 * Layout: a 4-byte little-endian length, the header (UTF-8 JSON: `{ args, parts }`, each raw value
 * replaced by `{ "$part": k }`, `parts` listing `[kind, length]`), then each part in order, each starting
 * at a multiple of 8 bytes from the body's start (zero padding). Numbers are in the machine's byte order:
 * the web host serves only 127.0.0.1, so both ends run on one machine. Pure TS: renderer and web host.
 */
import { jsonNestsDeeperThan, MAX_JSON_DEPTH } from './json-depth'

export const BINARY_CALL_TYPE = 'application/x-closebook-call'

/** Strings at least this long travel as UTF-8 parts (chunks of files and workbook text). */
export const MIN_STRING_PART = 4096

type PartKind = 'f64' | 'u8' | 'utf8'
const PART_KINDS: ReadonlySet<string> = new Set<PartKind>(['f64', 'u8', 'utf8'])
const PLACEHOLDER = '$part'

interface Part {
  kind: PartKind
  bytes: Uint8Array
  /** Elements: numbers of an array, bytes of a string. */
  length: number
}

/** A string without lone surrogates: UTF-8 would replace them, and the call must arrive as it was sent. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/
const isWellFormed = (s: string): boolean => !/[\uD800-\uDFFF]/.test(s) || !LONE_SURROGATE.test(s)

const isPlainObject = (v: object): boolean => {
  const proto: unknown = Object.getPrototypeOf(v)
  return proto === Object.prototype || proto === null
}

/** `value` with its raw values replaced by placeholders (the same value when it holds none). */
function extract(value: unknown, parts: Part[], depth: number): unknown {
  if (typeof value === 'string') {
    if (value.length < MIN_STRING_PART || !isWellFormed(value)) return value
    const bytes = ENCODER.encode(value)
    parts.push({ kind: 'utf8', bytes, length: bytes.length })
    return { [PLACEHOLDER]: parts.length - 1 }
  }
  if (typeof value !== 'object' || value === null) return value
  if (value instanceof Float64Array) {
    parts.push({
      kind: 'f64',
      bytes: new Uint8Array(value.buffer, value.byteOffset, value.byteLength),
      length: value.length,
    })
    return { [PLACEHOLDER]: parts.length - 1 }
  }
  if (value instanceof Uint8Array) {
    parts.push({ kind: 'u8', bytes: value, length: value.length })
    return { [PLACEHOLDER]: parts.length - 1 }
  }
  if (depth > MAX_JSON_DEPTH) return value // JSON.stringify of it is refused by the host's depth check
  if (Array.isArray(value)) {
    let copy: unknown[] | null = null
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i]
      const out = extract(item, parts, depth + 1)
      if (out !== item) (copy ??= value.slice())[i] = out
    }
    return copy ?? value
  }
  if (!isPlainObject(value)) return value
  let copy: Record<string, unknown> | null = null
  for (const [key, item] of Object.entries(value)) {
    // The host would take such an object for a placeholder: never sent.
    if (key === PLACEHOLDER) throw new Error(`A call's arguments may not use the key "${PLACEHOLDER}".`)
    const out = extract(item, parts, depth + 1)
    if (out !== item) (copy ??= { ...(value as Record<string, unknown>) })[key] = out
  }
  return copy ?? value
}

const ENCODER = new TextEncoder()

const padded = (n: number): number => Math.ceil(n / 8) * 8

/** The binary body of a call whose arguments hold raw values; null when JSON carries them as well. */
export function encodeBinaryCall(args: unknown): Uint8Array<ArrayBuffer> | null {
  const parts: Part[] = []
  const replaced = extract(args, parts, 0)
  if (parts.length === 0) return null
  const header = ENCODER.encode(
    JSON.stringify({ args: replaced, parts: parts.map((p) => [p.kind, p.length]) }),
  )
  let size = padded(4 + header.length)
  for (const p of parts) size = padded(size + p.bytes.length)
  const body = new Uint8Array(size)
  new DataView(body.buffer).setUint32(0, header.length, true)
  body.set(header, 4)
  let at = padded(4 + header.length)
  for (const p of parts) {
    body.set(p.bytes, at)
    at = padded(at + p.bytes.length)
  }
  return body
}

const BYTES_PER: Record<PartKind, number> = { f64: 8, u8: 1, utf8: 1 }

/** The parts' values, each read from its place in `body`. */
function readParts(body: Uint8Array, from: number, listed: unknown): unknown[] | string {
  if (!Array.isArray(listed) || listed.length > 64) return 'the parts list is not a list of at most 64'
  const values: unknown[] = []
  const decoder = new TextDecoder()
  let at = from
  for (const entry of listed as unknown[]) {
    if (!Array.isArray(entry) || entry.length !== 2) return 'a part is not [kind, length]'
    const [kind, length] = entry as unknown[]
    if (typeof kind !== 'string' || !PART_KINDS.has(kind)) return 'a part has an unknown kind'
    if (!Number.isSafeInteger(length) || (length as number) < 0) return 'a part has no valid length'
    const bytes = (length as number) * BYTES_PER[kind as PartKind]
    if (at + bytes > body.length) return 'the parts run past the end of the body'
    const start = body.byteOffset + at
    if (kind === 'utf8') values.push(decoder.decode(body.subarray(at, at + bytes)))
    else if (kind === 'u8') values.push(body.slice(at, at + bytes))
    else
      values.push(
        start % 8 === 0
          ? new Float64Array(body.buffer, start, length as number)
          : new Float64Array(body.slice(at, at + bytes).buffer),
      )
    at = padded(at + bytes)
  }
  if (at !== padded(body.length)) return 'the body is longer than its parts'
  return values
}

/** `value` with each placeholder replaced by its part; every part is used exactly once. */
function restore(value: unknown, parts: unknown[], used: boolean[]): unknown {
  if (typeof value !== 'object' || value === null) return value
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = restore(value[i], parts, used)
    return value
  }
  const record = value as Record<string, unknown>
  const keys = Object.keys(record)
  if (keys.includes(PLACEHOLDER)) {
    const k = record[PLACEHOLDER]
    if (keys.length !== 1 || typeof k !== 'number' || !Number.isInteger(k) || k < 0 || k >= parts.length)
      throw new Error('a placeholder does not name a part')
    if (used[k]) throw new Error('a part is named twice')
    used[k] = true
    return parts[k]
  }
  for (const key of keys) record[key] = restore(record[key], parts, used)
  return record
}

/**
 * The arguments of a binary body, or what is wrong with it: the same checks as a JSON body's (the header's
 * nesting bounded before it is parsed), and parts that add up to the body exactly.
 */
export function decodeBinaryCall(body: Uint8Array): { args: unknown } | { problem: string } {
  if (body.length < 4) return { problem: 'The call body is shorter than its header length.' }
  const headerLength = new DataView(body.buffer, body.byteOffset, 4).getUint32(0, true)
  if (4 + headerLength > body.length) return { problem: 'The call body is shorter than its header.' }
  const text = new TextDecoder().decode(body.subarray(4, 4 + headerLength))
  if (jsonNestsDeeperThan(text)) return { problem: `The call body nests more than ${MAX_JSON_DEPTH} levels.` }
  let header: unknown
  try {
    header = JSON.parse(text)
  } catch {
    return { problem: "The call body's header is not valid JSON." }
  }
  if (typeof header !== 'object' || header === null || !('parts' in header))
    return { problem: "The call body's header is not { args, parts }." }
  const parts = readParts(body, padded(4 + headerLength), header.parts)
  if (typeof parts === 'string') return { problem: `The call body does not add up: ${parts}.` }
  const used = parts.map(() => false)
  let args: unknown
  try {
    args = restore('args' in header ? header.args : undefined, parts, used)
  } catch (error) {
    return { problem: `The call body does not add up: ${(error as Error).message}.` }
  }
  if (used.includes(false)) return { problem: 'The call body does not add up: a part is not named.' }
  return { args }
}
