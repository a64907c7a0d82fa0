import type { DemoService } from '../demo/demo-service'
import type { HandlersFor } from './types'

export function sandboxHandlers(demo: DemoService): HandlersFor<'sandbox'> {
  return {
    'sandbox:startDemo': () => demo.start(),
  }
}
