/**
 * DesktopApi: the one typed contract between the renderer and a host (Electron IPC or the web host's HTTP).
 * Pure TypeScript + zod: no electron, node or DOM imports. Every call is `domain:action` with one argument
 * object and one result, both described by zod schemas that the host checks before and after the call.
 */
import type { z } from 'zod'
import { apiContract } from './api'
import { backupContract } from './backup'
import { appContract } from './app'
import { connectionsContract } from './connections'
import { exportContract } from './export'
import { filesContract } from './files'
import { payoutsContract } from './payouts'
import { sandboxContract } from './sandbox'
import { teamContract } from './team'

export const desktopApiContract = {
  ...appContract,
  ...filesContract,
  ...connectionsContract,
  ...apiContract,
  ...payoutsContract,
  ...sandboxContract,
  ...exportContract,
  ...backupContract,
  ...teamContract,
} as const

export type DesktopApiContract = typeof desktopApiContract
export type Channel = keyof DesktopApiContract
export type ArgsOf<C extends Channel> = z.input<DesktopApiContract[C]['args']>
export type ParsedArgsOf<C extends Channel> = z.output<DesktopApiContract[C]['args']>
export type ResultOf<C extends Channel> = z.output<DesktopApiContract[C]['result']>

type DomainOf<C extends string> = C extends `${infer D}:${string}` ? D : never
type ActionOf<C extends string> = C extends `${string}:${infer A}` ? A : never

/** `window.closebook`: `closebook.app.info({})`, `closebook.api.listPage({...})`, … */
export type DesktopApi = {
  readonly [D in DomainOf<Channel>]: {
    readonly [C in Extract<Channel, `${D}:${string}`> as ActionOf<C>]: (
      args: ArgsOf<C>,
    ) => Promise<ResultOf<C>>
  }
}

export * from './app'
export * from './files'
export * from './connections'
export * from './api'
export * from './payouts'
export * from './sandbox'
export * from './export'
export * from './backup'
export * from './team'
