export interface IdbWriteArgs {
  layout: string
}

export interface IdbWriteResult {
  layout: string
  ms: number
  rows: number
  /** Secondary index entries the rows made (a row × its table's secondary indexes). */
  indexEntries: number
}
