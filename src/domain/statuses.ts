/** Statuses after which a record does not change any more (real-service.md); any other string may. */
export const FINAL_STATUSES: ReadonlySet<string> = new Set(['successful', 'failed', 'error', 'canceled'])

export const isChangeableStatus = (status: string): boolean => !FINAL_STATUSES.has(status)
