/** History records named in turn (names searchable through the cardholder fields), for the search tests. */
import { historyRecordOf } from '../../../../src/db/history-record'
import type { HistoryRecord } from '../../../../src/domain/records'
import { CONN, HOUR, T0, historyItem } from './fixtures'

export const NAMES = ['Ava Stone', 'Ben Stone', '山田 太郎', 'Ava Brook', 'Cal Reed']

/** Record n, three hours apart (eight UTC days for 60), named in turn. */
export function namedRecord(n: number, name = NAMES[n % NAMES.length]!, hours = n * 3): HistoryRecord {
  return historyRecordOf(
    CONN,
    historyItem(n, {
      created_on: new Date(T0 + hours * HOUR).toISOString(),
      user_data: {
        cardholder_name: name,
        cardholder_email_address: `${name.split(' ')[0]!.toLowerCase()}${n}@example.jp`,
      },
    }),
    T0,
  )
}
