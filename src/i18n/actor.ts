/**
 * Who an audit entry, a close or a restore is recorded as. Until the user sets a name in Settings, the
 * neutral token DEFAULT_ACTOR is stored (the same token older versions stored as a literal name), and it
 * is worded at display time in the display language (`labels.actor.default`: "accountant", "経理担当者"),
 * so a Japanese audit row never shows an English word the user did not type.
 */
import type { Translator } from './labels'

export const DEFAULT_ACTOR = 'accountant'

/** The name set in Settings, or the neutral token when none is. */
export function actorOrDefault(name: unknown): string {
  return typeof name === 'string' && name.trim() ? name.trim() : DEFAULT_ACTOR
}

/** The actor as the accountant reads it: a typed name as typed, the neutral token in words. */
export function actorLabel(tr: Translator, actor: string): string {
  return actor === DEFAULT_ACTOR ? tr.t('labels.actor.default') : actor
}
