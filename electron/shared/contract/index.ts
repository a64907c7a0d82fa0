/**
 * DesktopApi: the one typed contract between the renderer and a host (Electron IPC or the web host's HTTP).
 * Pure TypeScript + zod: no electron, node or DOM imports. Every call is `domain:action` with one argument
 * object and one result, both described by zod schemas that the host checks before and after the call.
 */
import type { z } from 'zod'
import { appContract } from './app'

export const desktopApiContract = {
  ...appContract,
} as const

export type DesktopApiContract = typeof desktopApiContract
export type Channel = keyof DesktopApiContract
export type ArgsOf<C extends Channel> = z.input<DesktopApiContract[C]['args']>
export type ParsedArgsOf<C extends Channel> = z.output<DesktopApiContract[C]['args']>
export type ResultOf<C extends Channel> = z.output<DesktopApiContract[C]['result']>

type DomainOf<C extends string> = C extends `${infer D}:${string}` ? D : never
type ActionOf<C extends string, D extends string> = C extends `${D}:${infer A}` ? A : never

/** `window.closebook`: `closebook.app.info({})`, `closebook.api.listPage({...})`, … */
export type DesktopApi = {
  readonly [D in DomainOf<Channel>]: {
    readonly [A in ActionOf<Channel, D>]: `${D}:${A}` extends Channel
      ? (args: ArgsOf<`${D}:${A}`>) => Promise<ResultOf<`${D}:${A}`>>
      : never
  }
}

export * from './app'
