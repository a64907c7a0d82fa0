import { createI18n } from 'vue-i18n'
import { en, type MessageSchema } from './en'
import { ja } from './ja'

export const SUPPORTED_LOCALES = ['en', 'ja'] as const
export type Locale = (typeof SUPPORTED_LOCALES)[number]

const LOCALE_KEY = 'closebook.locale'

export function isLocale(value: unknown): value is Locale {
  return typeof value === 'string' && (SUPPORTED_LOCALES as readonly string[]).includes(value)
}

/** The saved choice, else the system language when it is Japanese, else English. */
export function initialLocale(saved: string | null, systemLanguages: readonly string[]): Locale {
  if (isLocale(saved)) return saved
  return systemLanguages.some((l) => l.toLowerCase().startsWith('ja')) ? 'ja' : 'en'
}

export function createAppI18n(locale: Locale) {
  return createI18n<[MessageSchema], Locale>({
    legacy: false,
    locale,
    fallbackLocale: 'en',
    messages: { en, ja },
  })
}

export function saveLocale(locale: Locale): void {
  try {
    localStorage.setItem(LOCALE_KEY, locale)
  } catch {
    // Private mode or storage full: the choice then lasts for this session only.
  }
}

export function savedLocale(): string | null {
  try {
    return localStorage.getItem(LOCALE_KEY)
  } catch {
    return null
  }
}
