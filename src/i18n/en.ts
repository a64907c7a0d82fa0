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
    demoIntro:
      'New here? The demo starts a simulated payment service on this computer with generated stores, charges and refunds, so you can try syncing, reconciling and exporting without an account.',
    demoStarting: 'Starting the demo…',
    listLabel: 'Your connections',
    columns: {
      label: 'Name',
      baseUrl: 'API address',
      stores: 'Stores',
      timeZone: 'Accounting time zone',
      credentials: 'Credentials',
      actions: 'Actions',
    },
    allStores: 'All stores',
    storeCount: '{count} store | {count} stores',
    credentialsStored: 'In keychain',
    credentialsMissing: 'Missing',
    demoBadge: 'Demo',
    test: 'Test',
    testFor: 'Test connection {label}',
    sync: 'Sync',
    syncFor: 'Sync {label}',
    delete: 'Delete',
    deleteFor: 'Delete connection {label}',
    confirmDelete: 'Delete the connection “{label}” and its keychain entry? The cached records and your marks stay in the cache.',
    testOk: 'Connected to {merchant}: {stores}.',
    addTitle: 'Add a connection',
    form: {
      label: 'Name',
      baseUrl: 'API address (https://…)',
      secret: 'Secret',
      appToken: 'App token (JWT)',
      storeIds: 'Store IDs (optional, comma-separated)',
      timeZone: 'Accounting time zone',
      submit: 'Save connection',
      writeOnly: 'The secret and app token are stored in the system keychain and are never shown again.',
    },
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
