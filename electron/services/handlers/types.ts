import type { Channel, ParsedArgsOf, ResultOf } from '../../shared/contract'

/** Who is calling: filled by the transport after it has checked the sender (IPC frame or HTTP token). */
export interface CallContext {
  readonly host: 'electron' | 'web'
  /** Aborted when the caller goes away (window closed, HTTP request aborted). */
  readonly signal: AbortSignal
}

export type Handler<C extends Channel> = (args: ParsedArgsOf<C>, ctx: CallContext) => Promise<ResultOf<C>>

/** One handler per channel of a domain: `HandlersFor<'app'>` covers `app:info`, `app:openExternal`, … */
export type HandlersFor<D extends string> = {
  [C in Extract<Channel, `${D}:${string}`>]: Handler<C>
}

export type Handlers = { [C in Channel]: Handler<C> }
