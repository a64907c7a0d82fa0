import type { MessageSchema } from './en'

export const ja: MessageSchema = {
  app: {
    name: 'Closebook',
    tagline: 'カード決済の月次締め・消込',
    skipToContent: '本文へ移動',
    mainNav: 'メインナビゲーション',
    language: '言語',
    host: { electron: 'デスクトップアプリ', web: 'Web ホスト（このコンピューターのみ）' },
  },
  nav: {
    connections: '接続',
    ledger: '台帳',
    monthEnd: '月次締め',
    settings: '設定',
  },
  connections: {
    title: '接続',
    intro: '接続は決済サービスの加盟店アカウント 1 件です。認証情報はシステムのキーチェーンに保存されます。',
    empty: '接続はまだありません。',
    tryDemo: 'デモデータで試す',
  },
  ledger: {
    title: '台帳',
    empty: 'キャッシュはまだ空です。接続を追加して同期すると、売上と返金がここに表示されます。',
  },
  monthEnd: {
    title: '月次締め',
    empty: '接続と月を選ぶと、集計の確認とワークブックの出力ができます。',
  },
  settings: {
    title: '設定',
    language: '言語',
    about: 'このアプリについて',
    version: 'バージョン {version}',
    keychain: 'システムのキーチェーン',
    keychainAvailable: '利用可能：認証情報はシステムのキーチェーンに保存されます。',
    keychainUnavailable:
      '利用できません（キーチェーンなし）：{reason}。本番の認証情報は保存できません（デモは利用できます）。',
  },
  errors: {
    generic: 'エラーが発生しました：{message}',
  },
  languages: { en: 'English', ja: '日本語' },
}
