// The team workspace as main serves it: settings in <dataDir>/team.json (no secret), the login's password in
// the OS keychain, one session opened lazily and closed when the settings change. With nothing configured
// every call but get/configure answers `not_configured`, and nothing else in the app changes.
import { readFile, unlink } from 'node:fs/promises'
import { join } from 'node:path'
import type { z } from 'zod'
import {
  teamConfigSchema,
  type TeamConfigInput,
  type TeamMarkOutcome,
  type TeamSummary,
  type TeamTestResult,
  type teamContract,
} from '../../shared/contract/team'
import { DesktopApiError, type ApiErrorCode } from '../../shared/errors'
import type { TeamAuditRow } from '../../shared/team-chain'
import { saveJsonFile } from '../files/save-json'
import { noKeychainError } from '../vault/credentials'
import type { SecretStore } from '../vault/secret-store'
import { isLoopbackHost, TeamError, testConnection, type TeamFailure } from './connection'
import { TeamSession, type Grant, type JoinResult, type MarksResult, type MonthResult } from './session'
import { Wakes } from './wakes'

export const TEAM_FILE = 'team.json'
/** Where an earlier Closebook kept the one team password (read as a fallback, removed on forget). */
export const TEAM_ACCOUNT = 'team-workspace:password'

/**
 * The keychain account of a login's password: one per login and server, so two workspaces (two data
 * directories of one OS user, e.g. two web hosts) never read or overwrite each other's password.
 */
export function teamAccountOf(config: Pick<TeamConfigInput, 'user' | 'host' | 'port' | 'database'>): string {
  return `team-workspace:${config.user}@${config.host}:${config.port}/${config.database}`
}

type Args<C extends keyof typeof teamContract> = z.output<(typeof teamContract)[C]['args']>

const CODES: Record<TeamFailure, ApiErrorCode> = {
  unreachable: 'network',
  auth_failed: 'unauthorized',
  tls: 'tls',
  no_database: 'not_found',
  schema_missing: 'conflict',
  schema_too_old: 'conflict',
  schema_too_new: 'conflict',
  missing_role: 'forbidden',
  no_grant: 'forbidden',
  invalid_input: 'invalid_argument',
  server_error: 'server_error',
}

/** The typed error that crosses the bridge; `details.failure` names the team failure precisely. */
export function teamApiError(error: unknown): DesktopApiError {
  if (error instanceof DesktopApiError) return error
  if (error instanceof TeamError) {
    return new DesktopApiError(CODES[error.failure], error.message, { failure: error.failure })
  }
  return new DesktopApiError('internal', 'The team workspace call failed unexpectedly.')
}

/** A keychain failure reads as no password; a wait that timed out or was cancelled is passed on as such. */
function noEntryUnlessWaitFailed(error: unknown): null {
  if (error instanceof DesktopApiError) throw error
  return null
}

export class TeamService {
  private config: TeamConfigInput | null = null
  private loaded = false
  private session: TeamSession | null = null
  private readonly wakes = new Wakes()
  private listening: Promise<boolean> | null = null

  constructor(
    private readonly dataDir: string,
    private readonly secrets: SecretStore,
  ) {}

  private get path(): string {
    return join(this.dataDir, TEAM_FILE)
  }

  private async load(): Promise<TeamConfigInput | null> {
    if (this.loaded) return this.config
    try {
      const parsed = teamConfigSchema.safeParse(JSON.parse(await readFile(this.path, 'utf8')))
      this.config = parsed.success ? parsed.data : null
    } catch {
      this.config = null
    }
    this.loaded = true
    return this.config
  }

  async summary(): Promise<TeamSummary> {
    const config = await this.load()
    const hasPassword = config ? (await this.passwordOf(config)) !== null : false
    return {
      configured: config !== null,
      config,
      hasPassword,
      plain: config ? isLoopbackHost(config.host) : false,
    }
  }

  async configure({ config, password }: Args<'team:configure'>): Promise<TeamSummary> {
    // No password typed: the one saved for the earlier settings stays with these (a port or host moved).
    const earlier = await this.load()
    const kept = password ?? (earlier ? await this.passwordOf(earlier) : null) ?? undefined
    if (kept !== undefined && (password !== undefined || (await this.passwordOf(config)) === null)) {
      const status = await this.secrets.probe()
      if (!status.available) throw noKeychainError(status)
      await this.secrets.set(teamAccountOf(config), kept)
    }
    await this.write(config)
    await this.reset()
    this.config = config
    this.loaded = true
    return this.summary()
  }

  async forget(): Promise<TeamSummary> {
    const config = await this.load()
    await this.reset()
    if (config) await this.secrets.delete(teamAccountOf(config)).catch(() => false)
    await this.secrets.delete(TEAM_ACCOUNT).catch(() => false)
    await unlink(this.path).catch(() => undefined)
    this.config = null
    this.loaded = true
    return this.summary()
  }

  async test(): Promise<TeamTestResult> {
    let credentials: { config: TeamConfigInput; password: string }
    try {
      credentials = await this.credentials()
    } catch (error) {
      const failure = error instanceof DesktopApiError ? error.details?.failure : undefined
      if (failure === 'not_configured' || failure === 'no_password') {
        return { ok: false, failure, message: (error as Error).message }
      }
      throw teamApiError(error)
    }
    try {
      return { ok: true, ...(await testConnection(credentials.config, credentials.password)) }
    } catch (error) {
      if (error instanceof TeamError) return { ok: false, failure: error.failure, message: error.message }
      throw teamApiError(error)
    }
  }

  async pushMarks({
    merchant,
    key,
    marks,
  }: Args<'team:pushMarks'>): Promise<MarksResult & { outcomes: TeamMarkOutcome[] }> {
    return this.withSession((s) => s.applyMarks(merchant, key, marks))
  }

  async joinMarks({ merchant, key, marks }: Args<'team:joinMarks'>): Promise<JoinResult> {
    return this.withSession((s) => s.joinMarks(merchant, key, marks))
  }

  async grants(): Promise<Grant[]> {
    return this.withSession((s) => s.grants())
  }

  /**
   * Resolves when the server has announced audit rows past `after`, or after `timeoutMs`, or when the
   * caller goes away. With nothing configured, or no LISTEN possible, it answers at once, not listening.
   */
  async waitWake(
    { after, timeoutMs }: Args<'team:waitWake'>,
    signal?: AbortSignal,
  ): Promise<{ wakeCount: number; listening: boolean }> {
    if (!(await this.load()) || !(await this.ensureListening())) {
      return { wakeCount: this.wakes.value, listening: false }
    }
    return { wakeCount: await this.wakes.wait(after, timeoutMs, signal), listening: true }
  }

  /** Sets up LISTEN on the session once; a lost listening connection is set up again on the next call. */
  private ensureListening(): Promise<boolean> {
    this.listening ??= this.withSession((s) =>
      s.listen(
        () => this.wakes.wake(),
        () => {
          this.listening = null
          this.wakes.releaseAll()
        },
      ),
    ).then(
      () => true,
      () => {
        this.listening = null
        return false
      },
    )
    return this.listening
  }

  async changeMonth(args: Args<'team:changeMonth'>): Promise<MonthResult> {
    const merchant = args.merchant
    return this.withSession((s) => {
      switch (args.action) {
        case 'submit':
          return s.submitMonth(merchant, args.key, args.month, args.baseVersion)
        case 'sign_off':
          return s.signOff(merchant, args.key, args.month, args.baseVersion, args.payoutClose ?? null)
        case 'send_back':
          return s.sendBack(merchant, args.key, args.month, args.note)
        case 'reopen':
          return s.reopen(merchant, args.key, args.month, args.note)
      }
    })
  }

  async months({ merchant }: Args<'team:months'>): Promise<MonthResult['month'][]> {
    return this.withSession((s) => s.months(merchant))
  }

  async pullAudit({ merchant, afterSeq, limit }: Args<'team:pullAudit'>): Promise<{
    rows: TeamAuditRow[]
    wakeCount: number
  }> {
    const rows = await this.withSession((s) => s.pullAudit(merchant, afterSeq, limit ?? 5000))
    return { rows, wakeCount: this.wakes.value }
  }

  async dispose(): Promise<void> {
    await this.reset()
  }

  private async credentials(): Promise<{ config: TeamConfigInput; password: string }> {
    const config = await this.load()
    if (!config) {
      throw new DesktopApiError('not_found', 'No team workspace is set up on this desktop.', {
        failure: 'not_configured',
      })
    }
    const password = await this.passwordOf(config)
    if (password === null) {
      throw new DesktopApiError('unauthorized', `No password is saved for the team login ${config.user}.`, {
        failure: 'no_password',
      })
    }
    return { config, password }
  }

  /** The login's saved password, or the one an earlier Closebook kept under the single account. */
  private async passwordOf(config: TeamConfigInput): Promise<string | null> {
    const own = await this.secrets.get(teamAccountOf(config)).catch(noEntryUnlessWaitFailed)
    return own ?? (await this.secrets.get(TEAM_ACCOUNT).catch(noEntryUnlessWaitFailed))
  }

  private async withSession<T>(work: (session: TeamSession) => Promise<T>): Promise<T> {
    try {
      if (!this.session) {
        const { config, password } = await this.credentials()
        this.session = new TeamSession(config, password)
        // LISTEN is a wake-up only; when it cannot be set up the renderer's polling still pulls.
        void this.ensureListening()
      }
      return await work(this.session)
    } catch (error) {
      throw teamApiError(error)
    }
  }

  private async reset(): Promise<void> {
    const session = this.session
    this.session = null
    this.listening = null
    this.wakes.releaseAll()
    await session?.close()
  }

  private async write(config: TeamConfigInput): Promise<void> {
    await saveJsonFile(this.path, config, 'the team settings')
  }
}
