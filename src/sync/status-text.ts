/**
 * The words of the sync panel's status, as i18n keys and parameters (pure, so tests read them without a
 * browser): a run that ended with items set aside never says a bare "Up to date.", and a partition that
 * stopped for a reason Closebook knows says that reason in the display language.
 */
import type { PartitionError, SyncState } from './sync-engine'

export interface Message {
  key: string
  params: Record<string, number>
  /** For plural forms. */
  plural?: number
}

/** The state line: "Up to date." only when nothing is set aside for the connection. */
export function stateMessage(state: SyncState, setAside: number): Message {
  if (state === 'done' && setAside > 0)
    return { key: 'syncGuard.doneSetAside', params: { count: setAside }, plural: setAside }
  return { key: `sync.state.${state}`, params: {} }
}

/** Reasons with their own sentence (the paging guard's and main's refusals of a whole page). */
export const KNOWN_STOP_REASONS = [
  'empty_page',
  'cursor_stuck',
  'cursor_repeated',
  'more_than_total',
  'too_many_pages',
  'too_dense',
  'page_too_large',
  'too_many_items',
  'nested_too_deep',
] as const

/** The sentence of a partition's stop, or null when only its error code can be worded. */
export function stopMessage(error: PartitionError | null): Message | null {
  const reason = error?.reason
  if (!reason || !(KNOWN_STOP_REASONS as readonly string[]).includes(reason)) return null
  return { key: `syncGuard.reasons.${reason}`, params: error.params ?? {} }
}
