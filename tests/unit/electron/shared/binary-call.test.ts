import { describe, expect, it } from 'vitest'
import { decodeBinaryCall, encodeBinaryCall, MIN_STRING_PART } from '../../../../electron/shared/binary-call'

const long = (seed: string): string => seed.repeat(Math.ceil(MIN_STRING_PART / seed.length) + 1)

/** The body as the web host reads it: a Buffer, possibly at an odd offset of a larger allocation. */
function atOffset(body: Uint8Array, offset: number): Uint8Array {
  const backing = new Uint8Array(body.length + offset)
  backing.set(body, offset)
  return backing.subarray(offset)
}

describe('binary call bodies', () => {
  it('are not used for arguments JSON carries as well', () => {
    expect(encodeBinaryCall({ exportId: 'x', rows: [[1, 'a', null]] })).toBeNull()
    expect(encodeBinaryCall({ chunk: 'short' })).toBeNull()
  })

  it('bring back typed arrays, long strings and everything around them as they were sent', () => {
    const cells = new Float64Array([1, 3, 2, -12.5, 3, Date.UTC(2026, 8, 1), 0, 0, 6, 1234.56])
    const tags = new Uint8Array([0, 1, 255])
    const text = long('東京 "quoted", line\nbreak 🍣 ')
    const args = {
      exportId: 'abc',
      sheet: 'Transactions',
      packed: { width: 5, cells, text },
      nested: [{ tags }, 'short', null, 7],
    }
    const body = encodeBinaryCall(args)
    expect(body).not.toBeNull()
    for (const offset of [0, 1, 3, 8]) {
      const decoded = decodeBinaryCall(atOffset(body as Uint8Array, offset))
      expect(decoded).toEqual({ args })
      const back = (decoded as { args: typeof args }).args
      expect(back.packed.cells).toBeInstanceOf(Float64Array)
      expect(back.nested[0]).toEqual({ tags })
      expect((back.nested[0] as { tags: Uint8Array }).tags).toBeInstanceOf(Uint8Array)
    }
    // The sender's value is left as it was.
    expect(args.packed.cells).toBe(cells)
  })

  it('keeps a long string with a lone surrogate in the JSON, where it survives', () => {
    const odd = long('a') + '\uD800' + 'b'
    const body = encodeBinaryCall({ chunk: odd, cells: new Float64Array([1]) })
    expect(decodeBinaryCall(body as Uint8Array)).toEqual({
      args: { chunk: odd, cells: new Float64Array([1]) },
    })
  })

  it('refuses to send an argument that would read as a placeholder', () => {
    expect(() => encodeBinaryCall({ a: { $part: 0 }, b: new Float64Array(1) })).toThrow(/\$part/)
  })

  it('refuses bodies that do not add up, each with what is wrong', () => {
    const good = encodeBinaryCall({ cells: new Float64Array([1, 2, 3]), text: long('x') }) as Uint8Array
    const problem = (body: Uint8Array): string => {
      const decoded = decodeBinaryCall(body)
      return 'problem' in decoded ? decoded.problem : ''
    }
    expect(problem(good)).toBe('')
    expect(problem(good.subarray(0, 3))).toMatch(/shorter than its header length/)
    expect(problem(good.subarray(0, 10))).toMatch(/shorter than its header/)
    expect(problem(good.subarray(0, good.length - 8))).toMatch(/run past the end/)
    const longer = new Uint8Array(good.length + 8)
    longer.set(good)
    expect(problem(longer)).toMatch(/longer than its parts/)

    const withHeader = (header: string, tail = new Uint8Array(0)): Uint8Array => {
      const bytes = new TextEncoder().encode(header)
      const body = new Uint8Array(Math.ceil((4 + bytes.length) / 8) * 8 + tail.length)
      new DataView(body.buffer).setUint32(0, bytes.length, true)
      body.set(bytes, 4)
      body.set(tail, body.length - tail.length)
      return body
    }
    const eight = new Uint8Array(8)
    expect(problem(withHeader('{"args":{}'))).toMatch(/not valid JSON/)
    expect(problem(withHeader('{"args":{}}'))).toMatch(/not \{ args, parts \}/)
    expect(problem(withHeader('{"args":{},"parts":[["f32",1]]}', eight))).toMatch(/unknown kind/)
    expect(problem(withHeader('{"args":{},"parts":[["f64",-1]]}', eight))).toMatch(/valid length/)
    expect(problem(withHeader('{"args":{},"parts":[["f64",1]]}', eight))).toMatch(/not named/)
    expect(problem(withHeader('{"args":{"a":{"$part":1}},"parts":[["f64",1]]}', eight))).toMatch(
      /does not name a part/,
    )
    expect(
      problem(withHeader('{"args":{"a":{"$part":0},"b":{"$part":0}},"parts":[["f64",1]]}', eight)),
    ).toMatch(/named twice/)
    expect(problem(withHeader('{"args":{"a":{"$part":0,"x":1}},"parts":[["f64",1]]}', eight))).toMatch(
      /does not name a part/,
    )
    expect(problem(withHeader(`{"args":${'['.repeat(100)}${']'.repeat(100)},"parts":[]}`))).toMatch(
      /nests more than/,
    )
  })
})
