/**
 * A call's arguments from its HTTP body, as the web host takes them: JSON (`{ args }`), or the binary form
 * (`binary-call.ts`) whose typed arrays and long strings arrive as IPC would hand them over. Either way
 * the nesting is bounded before anything is parsed, and a body that does not add up is refused with what
 * is wrong; the contract then checks the arguments as for any host.
 */
import { BINARY_CALL_TYPE, decodeBinaryCall } from '../shared/binary-call'
import { jsonNestsDeeperThan, MAX_JSON_DEPTH } from '../shared/json-depth'

/** A body that is refused is answered 400 `invalid_argument` with this message. */
export type CallBody = { ok: true; args: unknown } | { ok: false; message: string }

export const CALL_TYPES_MESSAGE = `Calls must be sent as application/json or ${BINARY_CALL_TYPE}.`

/** Whether a call may be sent with this content type (both need a CORS preflight, which we never answer). */
export function isCallContentType(contentType: string | undefined): boolean {
  const type = contentType ?? ''
  return type.startsWith('application/json') || type.startsWith(BINARY_CALL_TYPE)
}

/** The arguments of a body sent with `contentType` (one `isCallContentType` accepts). */
export function callArgsOf(contentType: string | undefined, body: Buffer): CallBody {
  if ((contentType ?? '').startsWith(BINARY_CALL_TYPE)) {
    const decoded = decodeBinaryCall(body)
    return 'problem' in decoded ? { ok: false, message: decoded.problem } : { ok: true, args: decoded.args }
  }
  const text = body.toString('utf8') || '{}'
  if (jsonNestsDeeperThan(text))
    return { ok: false, message: `The call body nests more than ${MAX_JSON_DEPTH} levels.` }
  try {
    const parsed: unknown = JSON.parse(text)
    return {
      ok: true,
      args: typeof parsed === 'object' && parsed !== null && 'args' in parsed ? parsed.args : undefined,
    }
  } catch {
    return { ok: false, message: 'The call body is not valid JSON.' }
  }
}
