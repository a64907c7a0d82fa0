/** English messages: the source of truth for keys; ja.ts must have the same shape (checked by the type). */
export const en = {
  app: {
    name: 'Closebook',
    tagline: 'Month-end reconciliation of card payments',
    skipToContent: 'Skip to content',
    mainNav: 'Main navigation',
    language: 'Language',
    host: { electron: 'Desktop app', web: 'Web host (this computer only)' },
  },
  nav: {
    connections: 'Connections',
    ledger: 'Ledger',
    monthEnd: 'Month-end',
    settings: 'Settings',
  },
  connections: {
    title: 'Connections',
    intro:
      'A connection is one merchant account of the payment service. Its credentials stay in your system keychain.',
    empty: 'No connections yet.',
    tryDemo: 'Try with demo data',
  },
  ledger: {
    title: 'Ledger',
    empty: 'Nothing cached yet. Add a connection and sync it to see its charges and refunds here.',
  },
  monthEnd: {
    title: 'Month-end',
    empty: 'Choose a connection and a month to see its summary and export the workbook.',
  },
  settings: {
    title: 'Settings',
    language: 'Language',
    about: 'About',
    version: 'Version {version}',
    keychain: 'System keychain',
    keychainAvailable: 'Available: credentials are stored in the system keychain.',
    keychainUnavailable:
      'Not available (no keychain): {reason}. Real credentials cannot be saved; the demo works without it.',
  },
  errors: {
    generic: 'Something went wrong: {message}',
  },
  languages: { en: 'English', ja: '日本語' },
} as const

type Widen<T> = { [K in keyof T]: T[K] extends string ? string : Widen<T[K]> }
export type MessageSchema = Widen<typeof en>
