/**
 * A call's arguments as the web host's client sends them and the web host takes them back: JSON, or the
 * binary body (`binary-call.ts`) when they hold typed arrays or long strings. Tests that stand in for the
 * web host's wire use it so that what they check is what crosses, in the form that crosses.
 */
import { decodeBinaryCall, encodeBinaryCall } from '../../electron/shared/binary-call'

/** The arguments as the host gets them, and the body as text (binary parts decoded as UTF-8) for scans. */
export function overTheWire(args: unknown): { args: unknown; text: string } {
  const body = encodeBinaryCall(args)
  if (!body) {
    const text = JSON.stringify(args) ?? 'undefined'
    return { args: text === 'undefined' ? undefined : (JSON.parse(text) as unknown), text }
  }
  const decoded = decodeBinaryCall(body)
  if ('problem' in decoded) throw new Error(decoded.problem)
  return { args: decoded.args, text: new TextDecoder().decode(body) }
}
