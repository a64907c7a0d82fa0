import { z } from 'zod'
import { connectionSummarySchema } from './connections'

/**
 * "Try with demo data": starts the embedded payment API sandbox on a loopback port with generated
 * credentials and registers the demo connection (credentials in memory, no keychain needed).
 * Calling it again returns the running demo.
 */
export const sandboxContract = {
  'sandbox:startDemo': { args: z.strictObject({}), result: connectionSummarySchema },
} as const
